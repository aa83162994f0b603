# encoding: utf-8
"""
@author:  xingyu liao
@contact: sherlockliao01@gmail.com
"""

from .lamb import Lamb
from .swa import SWA
from .radam import RAdam
from torch.optim import *
