# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

from .assign import greedy_bin_packing
from .module_parallel import replace_module_parallel
from .utils import (
    as_broadcastable,
    get_source_rank,
    init_dist,
    is_distributed,
    is_source_process,
    set_source_process,
    wait_for_comms,
)


__all__ = [
    "greedy_bin_packing",
    "replace_module_parallel",
    "as_broadcastable",
    "get_source_rank",
    "init_dist",
    "is_distributed",
    "is_source_process",
    "wait_for_comms",
    "set_source_process",
]
