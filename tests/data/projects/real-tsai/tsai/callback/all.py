from .core import *
from .experimental import *
from .noisy_student import *
from .MVP import *
from .PredictionDynamics import *