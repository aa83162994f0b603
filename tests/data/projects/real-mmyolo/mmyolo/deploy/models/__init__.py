# Copyright (c) OpenMMLab. All rights reserved.
from . import dense_heads  # noqa: F401,F403
