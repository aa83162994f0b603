# Copyright (c) OpenMMLab. All rights reserved.
from .evaluation import *  # noqa: F401, F403
from .hooks import *  # noqa: F401, F403
