from .abc.inference import *
from .inference import *
