# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .base_quant_tensor import *
from .base_quant_tensor import _unpack_quant_tensor
from .float_quant_tensor import *
from .groupwise_float_quant_tensor import *
from .groupwise_int_quant_tensor import *
from .int_quant_tensor import *
