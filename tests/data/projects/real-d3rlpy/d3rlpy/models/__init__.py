from .builders import *
from .encoders import *
from .q_functions import *
