from .llama_cpp import *
from .llama import *

__version__ = "0.3.36"
