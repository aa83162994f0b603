from .conditional_logit_model import *
from .nested_logit_model import *
