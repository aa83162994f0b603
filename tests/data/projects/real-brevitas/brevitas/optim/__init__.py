# Copyright (C) 2026, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .cailey_sgd import CaileySGD
from .sign_sgd import SignSGD
