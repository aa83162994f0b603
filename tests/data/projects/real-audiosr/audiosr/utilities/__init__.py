from .tools import *
from .data import *
from .model import *
