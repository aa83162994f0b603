# Copyright (c) OpenMMLab. All rights reserved.
# flake8: noqa
from .config import *
from .fileio import *
from .logging import *
from .registry import *
from .utils import *
from .version import __version__, version_info
