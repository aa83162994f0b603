# Copyright (c) OpenMMLab. All rights reserved.
from .evaluators import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .metrics import *  # noqa: F401,F403
