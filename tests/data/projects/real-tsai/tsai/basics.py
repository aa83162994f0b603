import fastai
import tsai
from .imports import *
from .utils import *
from .data.basics import *
from .losses import *
from .metrics import *
from .learner import *
from .tslearner import *
from .inference import *
from .analysis import *
from .callback.core import *
from .callback.PredictionDynamics import *
from .optimizer import *