# Copyright (C) 2026 Arcee AI
# SPDX-License-Identifier: LGPL-3.0-only

from mergekit.merge_methods.api import merge_state_dicts, merge_tensors
from mergekit.merge_methods.base import (
    BasePolicy,
    BatchedMergeMethod,
    BatchOptions,
    BatchParameter,
    GroupMergeMethod,
    InputContract,
    MergeMethod,
    MergeMethodSpec,
    OptionalTensorPolicy,
    ParameterScope,
    PerGroupValues,
    PerInput,
    PerInputValues,
    PerNonBase,
    TensorBatch,
    TensorEntry,
    TensorGroup,
    TensorMetadata,
)
from mergekit.merge_methods.easy_define import merge_method
from mergekit.merge_methods.generalized_task_arithmetic import (
    GeneralizedTaskArithmeticMerge,
)
from mergekit.merge_methods.multislerp import multislerp as multislerp
from mergekit.merge_methods.nearswap import nearswap_merge as nearswap_merge
from mergekit.merge_methods.ram import ram_merge as ram_merge
from mergekit.merge_methods.ram import ramplus_tl_merge as ramplus_tl_merge
from mergekit.merge_methods.registry import get, register, registered_methods
from mergekit.merge_methods.sce import sce_merge as sce_merge

__all__ = [
    "BatchedMergeMethod",
    "BatchOptions",
    "BatchParameter",
    "TensorBatch",
    "GroupMergeMethod",
    "OptionalTensorPolicy",
    "ParameterScope",
    "merge_method",
    "MergeMethod",
    "MergeMethodSpec",
    "TensorGroup",
    "TensorEntry",
    "TensorMetadata",
    "merge_state_dicts",
    "merge_tensors",
    "InputContract",
    "BasePolicy",
    "PerInput",
    "PerNonBase",
    "PerInputValues",
    "PerGroupValues",
    "multislerp",
    "nearswap_merge",
    "ram_merge",
    "ramplus_tl_merge",
    "get",
    "register",
    "registered_methods",
    "GeneralizedTaskArithmeticMerge",
    "sce_merge",
]
