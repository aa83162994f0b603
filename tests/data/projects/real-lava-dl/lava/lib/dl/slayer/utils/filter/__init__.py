# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause
"""Time dimension filtering utilities.
"""

from .conv import conv, corr
from .fir import FIR, FIRBank

__all__ = ['conv', 'corr', 'FIR', 'FIRBank']
