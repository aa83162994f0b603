# -------------------------------------------------------------------------
# Copyright (c) Microsoft Corporation. All rights reserved.
# Licensed under the MIT License.
# --------------------------------------------------------------------------

from vptq.layers.model_base import AutoModelForCausalLM, VQuantLinear

__all__ = [
    "AutoModelForCausalLM",
    "VQuantLinear",
]
