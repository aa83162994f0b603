# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import cuba, rf, rf_iz, alif, adrf, adrf_iz, sigma_delta

__all__ = [
    'cuba',
    'rf', 'rf_iz',
    'alif',
    'adrf', 'adrf_iz',
    'sigma_delta'
]
