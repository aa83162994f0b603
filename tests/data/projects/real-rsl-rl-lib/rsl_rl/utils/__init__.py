# Copyright (c) 2021-2026, ETH Zurich and NVIDIA CORPORATION
# All rights reserved.
#
# SPDX-License-Identifier: BSD-3-Clause

"""Helper functions."""

from .log_writer import LogWriter
from .neptune_log_writer import NeptuneLogWriter
from .utils import (
    check_nan,
    compile_model,
    get_param,
    reduce_gradients_in_buckets,
    resolve_callable,
    resolve_class,
    resolve_nn_activation,
    resolve_obs_groups,
    resolve_optimizer,
    split_and_pad_trajectories,
    unpad_trajectories,
)
from .wandb_log_writer import WandbLogWriter

__all__ = [
    "LogWriter",
    "NeptuneLogWriter",
    "WandbLogWriter",
    "check_nan",
    "compile_model",
    "get_param",
    "reduce_gradients_in_buckets",
    "resolve_callable",
    "resolve_class",
    "resolve_nn_activation",
    "resolve_obs_groups",
    "resolve_optimizer",
    "split_and_pad_trajectories",
    "unpad_trajectories",
]
