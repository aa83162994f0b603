from .config import *
from .settings import *