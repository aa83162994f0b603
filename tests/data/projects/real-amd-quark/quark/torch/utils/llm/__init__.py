#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#


from .compatibility import (
    check_compatibility_before_quantization,
)
from .data_preparation import get_calib_dataloader, get_loader, get_trainer_dataset, get_wikitext2
from .model_preparation import (
    create_model_skeleton,
    get_model,
    get_per_block_calib_batch_size,
    get_tokenizer,
    move_model_to_device_if_it_fits,
    prepare_for_moe_quant,
    preprocess_for_quantization,
    save_model,
    set_seed,
)
from .preprocessing import maybe_save_preprocessors

__all__ = [
    "check_compatibility_before_quantization",
    "create_model_skeleton",
    "get_model",
    "get_per_block_calib_batch_size",
    "get_tokenizer",
    "move_model_to_device_if_it_fits",
    "preprocess_for_quantization",
    "prepare_for_moe_quant",
    "save_model",
    "set_seed",
    "get_calib_dataloader",
    "get_loader",
    "get_trainer_dataset",
    "get_wikitext2",
    "maybe_save_preprocessors",
]
