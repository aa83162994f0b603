#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#


from .constants import (
    QPARAMSLINEAR_OVERRIDES_STATE_DICT,
    QUARK_ACTIVATION_SCALES_FILENAME,
    QUARK_ALGO_DEBUG,
    QUARK_AWQ_MEMORY_OPTIMIZATION,
    QUARK_CHECK_SCALE,
    QUARK_COUNT_OBSERVED_SAMPLES,
    QUARK_DEBUG,
    QUARK_DEBUG_ACT_HIST,
    QUARK_DEBUG_INPUT_PICKLE,
    QUARK_DEBUG_NAN,
    QUARK_DISABLE_COMPILE,
    QUARK_DISABLE_CUDA_GRAPH,
    QUARK_ENABLE_BUFFER_REUSE,
    QUARK_GPTQ_DEBUG,
    QUARK_LOG_BUFFER_STATS,
    QUARK_MXFP4_IMPL,
    QUARK_SAVE_ACTIVATION_SCALES,
    QUARK_TOKENS_DISTRIBUTION_PATH,
    QUARK_TORCH_COMPILE_MODE,
    TOKEN_DISTRIBUTION_THRESHOLD,
    TRITON_GPU_SUPPORTS_FP8,
)
from .debug import assert_no_nan
from .device import TPDeviceManager, e4m3fn_to_e4m3fnuz
from .exceptions import AppError, LossError
from .pack import create_pack_method
from .torch_utils import create_dir, get_op_name, getattr_recursive, resolve_star, setattr_recursive

__all__ = [
    "QPARAMSLINEAR_OVERRIDES_STATE_DICT",
    "QUARK_ACTIVATION_SCALES_FILENAME",
    "QUARK_ALGO_DEBUG",
    "QUARK_AWQ_MEMORY_OPTIMIZATION",
    "QUARK_CHECK_SCALE",
    "QUARK_COUNT_OBSERVED_SAMPLES",
    "QUARK_DEBUG",
    "QUARK_DEBUG_ACT_HIST",
    "QUARK_DEBUG_INPUT_PICKLE",
    "QUARK_DEBUG_NAN",
    "QUARK_DISABLE_COMPILE",
    "QUARK_DISABLE_CUDA_GRAPH",
    "QUARK_ENABLE_BUFFER_REUSE",
    "QUARK_GPTQ_DEBUG",
    "QUARK_LOG_BUFFER_STATS",
    "QUARK_MXFP4_IMPL",
    "QUARK_SAVE_ACTIVATION_SCALES",
    "QUARK_TOKENS_DISTRIBUTION_PATH",
    "QUARK_TORCH_COMPILE_MODE",
    "TRITON_GPU_SUPPORTS_FP8",
    "TOKEN_DISTRIBUTION_THRESHOLD",
    "assert_no_nan",
    "TPDeviceManager",
    "e4m3fn_to_e4m3fnuz",
    "AppError",
    "LossError",
    "create_pack_method",
    "create_dir",
    "get_op_name",
    "getattr_recursive",
    "resolve_star",
    "setattr_recursive",
]
