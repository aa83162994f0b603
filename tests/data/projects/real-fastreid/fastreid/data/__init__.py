# encoding: utf-8
"""
@author:  sherlock
@contact: sherlockliao01@gmail.com
"""

from . import transforms  # isort:skip
from .build import (
    build_reid_train_loader,
    build_reid_test_loader
)
from .common import CommDataset

# ensure the builtin datasets are registered
from . import datasets, samplers  # isort:skip

__all__ = [k for k in globals().keys() if not k.startswith("_")]
