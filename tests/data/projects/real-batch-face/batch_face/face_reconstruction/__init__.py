from .utils import *
from .regressor import ShapeRegressor
from .utils import parse_param, predict_dense, predict_68pts
