# Copyright (c) OpenMMLab. All rights reserved.
from .op_backend import AscendOpsBackend, SocVersion  # noqa: F401
