from .base import SingleStepMethod, StepResult
from .dopri5 import Dopri5
from .heun import Heun
from .tsit5 import Tsit5
from .euler import Euler
