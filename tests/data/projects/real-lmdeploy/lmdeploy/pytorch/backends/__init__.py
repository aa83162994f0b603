# Copyright (c) OpenMMLab. All rights reserved.
from .selector import get_backend  # noqa: F401
