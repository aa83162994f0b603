# Copyright (c) 2022-2026, NVIDIA CORPORATION & AFFILIATES. All rights reserved.
#
# See LICENSE for license information.

"""Python interface for c++ extensions"""
from transformer_engine_torch import *

from .fused_attn import *
from .gemm import *
