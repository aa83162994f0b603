# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .weighted_bit_width import ActivationBitWidthWeightedBySize
from .weighted_bit_width import ActivationFloatBitWidthWeightedBySize
from .weighted_bit_width import MEGA
from .weighted_bit_width import QuantLayerOutputBitWidthWeightedByOps
from .weighted_bit_width import WeightBitWidthWeightedBySize
from .weighted_bit_width import WeightFloatBitWidthWeightedBySize
