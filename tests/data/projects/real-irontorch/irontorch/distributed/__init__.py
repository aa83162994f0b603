# -*- coding: utf-8 -*-
"""Distributed training utilities for PyTorch."""

from irontorch.distributed.comm import (  # noqa: F401
    get_rank,
    get_local_rank,
    is_primary,
    synchronize,
    get_world_size,
    get_local_process_group,
    reduce_dict,
    is_parallel,
    upwrap_parallel,
    get_data_sampler,
    create_local_process_group,
)

from irontorch.distributed.config import setup_config  # noqa: F401

from irontorch.distributed.launch import run  # noqa: F401

__all__ = [
    "get_rank",
    "get_local_rank",
    "is_primary",
    "synchronize",
    "get_world_size",
    "get_local_process_group",
    "reduce_dict",
    "is_parallel",
    "upwrap_parallel",
    "get_data_sampler",
    "create_local_process_group",
    "setup_config",
    "run",
]
