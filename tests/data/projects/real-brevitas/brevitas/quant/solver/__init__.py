# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .act import ActQuantSolver
from .bias import BiasQuantSolver
from .clamp import ClampQuantSolver
from .trunc import TruncQuantSolver
from .weight import WeightQuantSolver
