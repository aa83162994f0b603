from .backbone import *
from .sam import *
