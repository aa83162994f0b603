from .images import *
from .cmaps import *
