import torch
from .acc import *
from .loss import *
from .reg import *
from .probe import *
