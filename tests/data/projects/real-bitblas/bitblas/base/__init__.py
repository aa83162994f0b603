# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
"""Base infra"""
from .analysis import (
    BlockInfo,  # noqa: F401
    IterInfo,  # noqa: F401
    collect_block_iter_vars_used_in_access_region,  # noqa: F401
    collect_vars_used_in_prim_expr,  # noqa: F401
    detect_dominant_read,  # noqa: F401
    is_broadcast_epilogue,  # noqa: F401
    normalize_prim_func,  # noqa: F401
)  # noqa: F401
from .common_schedules import get_block, get_output_blocks, try_inline, try_inline_contiguous_spatial  # noqa: F401
from .base_scheduler import simplify_prim_func  # noqa: F401
from .schedule_rule import ScheduleRule  # noqa: F401
from .tuner import fast_tune, fast_tune_with_dynamic_range  # noqa: F401
from .roller import *
from .arch import CUDA, CDNA  # noqa: F401
from .operator_common import TransformKind, OptimizeStrategy, BackendKind  # noqa: F401
