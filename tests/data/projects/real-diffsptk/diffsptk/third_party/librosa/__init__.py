from .constantq import *
from .filters import *
