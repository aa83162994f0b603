# Copyright (c) OpenMMLab. All rights reserved.
from .op_backend import CudaOpsBackend  # noqa: F401
