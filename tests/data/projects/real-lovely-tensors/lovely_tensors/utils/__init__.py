
from .config import *