# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from ._utils import (  # noqa
    AdapterModule,
    disable_adapter,
    get_adapter_params,
    get_adapter_state_dict,
    get_lora_module_names,
    get_merged_lora_ckpt,
    LORA_ATTN_MODULES,
    set_trainable_params,
    validate_missing_and_unexpected_for_lora,
)
from .dora import DoRALinear
from .lora import LoRALinear, QATLoRALinear


__all__ = [
    "AdapterModule",
    "DoRALinear",
    "LoRALinear",
    "QATLoRALinear",
    "get_adapter_params",
    "set_trainable_params",
    "validate_missing_and_unexpected_for_lora",
    "disable_adapter",
    "get_adapter_state_dict",
    "get_merged_lora_ckpt",
    "get_lora_module_names",
]
