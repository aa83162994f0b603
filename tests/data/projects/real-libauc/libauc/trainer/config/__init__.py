from .args import *
from .spaces import *