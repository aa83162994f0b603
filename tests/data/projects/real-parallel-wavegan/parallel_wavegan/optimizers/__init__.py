from torch.optim import *  # NOQA

from .radam import *  # NOQA
