from .classifier import *
from .regressor import *
from .domain_adaption import *
from .generative import *
from .self_supervised import *
from .imbalance import *