# encoding: utf-8
"""
@author:  sherlock
@contact: sherlockliao01@gmail.com
"""

from .autoaugment import AutoAugment
from .build import build_transforms
from .transforms import *

__all__ = [k for k in globals().keys() if not k.startswith("_")]
