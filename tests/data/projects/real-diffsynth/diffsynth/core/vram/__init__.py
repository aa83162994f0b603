from .initialization import skip_model_initialization
from .layers import *
