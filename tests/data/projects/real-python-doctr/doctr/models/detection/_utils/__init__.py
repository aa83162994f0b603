from .base import *
from .pytorch import *
