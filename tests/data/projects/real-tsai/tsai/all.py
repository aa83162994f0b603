import tsai
from .imports import *
from .utils import *
from .data.all import *
from .losses import *
from .metrics import *
from .learner import *
from .inference import *
from .analysis import *
from .calibration import *
from .tslearner import *
from .optimizer import *
from .models.all import *
from .callback.all import *
from .optuna import *
from .wandb import *
from .export import *