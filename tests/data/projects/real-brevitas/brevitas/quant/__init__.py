# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .binary import *
from .fixed_point import *
from .float import *
from .float_quant_fnuz import *
from .float_quant_ocp import *
from .mx_quant_ocp import *
from .none import *
from .scaled_int import *
from .shifted_scaled_int import *
from .ternary import *
