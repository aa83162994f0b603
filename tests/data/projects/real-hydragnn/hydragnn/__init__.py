from . import preprocess, models, train, postprocess, utils
from .run_training import run_training
from .run_prediction import run_prediction
