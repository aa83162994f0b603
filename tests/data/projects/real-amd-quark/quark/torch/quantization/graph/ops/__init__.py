#
# Copyright (C) 2024 - 2025 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from quark.torch.quantization.graph.ops.quant_stubs import DeQuantStub, QuantStub

__all__ = ["DeQuantStub", "QuantStub"]
