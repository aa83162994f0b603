# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
from .interleave_weight import tir_interleave_weight  # noqa: F401
