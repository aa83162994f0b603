# Copyright (c) OpenMMLab. All rights reserved.
from .hooks import *  # noqa: F401, F403
from .optim_wrappers import *  # noqa: F401, F403
from .schedulers import *  # noqa: F401, F403
