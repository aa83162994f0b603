# Copyright (c) 2021, Zhiqiang Wang. All Rights Reserved.

from yolort import data
from yolort import models
from yolort import utils
from yolort import v5

try:
    from .version import __version__  # noqa: F401
except ImportError:
    pass
