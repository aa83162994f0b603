# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import cuba, alif, rf, rf_iz, adrf, adrf_iz
from . import sigma_delta
from . import norm
from .dropout import Dropout

__all__ = [
    'cuba', 'alif',
    'rf', 'rf_iz',
    'adrf', 'adrf_iz',
    'sigma_delta',
    'Dropout', 'norm',
]
