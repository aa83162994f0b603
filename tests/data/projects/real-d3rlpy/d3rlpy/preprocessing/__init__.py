from .action_scalers import *
from .base import *
from .observation_scalers import *
from .reward_scalers import *
