#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from quark.torch.export.api import (
    export_gguf,
    export_onnx,
    export_safetensors,
    import_model_from_safetensors,
    save_params,
)
from quark.torch.pruning.api import ModelPruner
from quark.torch.quantization.api import ModelQuantizer, load_params
from quark.torch.quantization.config.template import LLMTemplate
from quark.torch.quantization.config.type import QuantFlow
from quark.torch.quantization.utils import RuntimeOptions, disable_native_inference, enable_native_inference

__all__ = [
    "ModelQuantizer",
    "ModelPruner",
    "load_params",
    "save_params",
    # New dedicated export functions
    "export_safetensors",
    "export_onnx",
    "export_gguf",
    "import_model_from_safetensors",
    # Native inference
    "enable_native_inference",
    "disable_native_inference",
    "RuntimeOptions",
    # LLM Template for quantization config
    "LLMTemplate",
    "QuantFlow",
]
