# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from .layer import Dense, Conv, Pool, ConvTranspose, Unpool
from . import complex

__all__ = [
    'Dense', 'Conv', 'Pool', 'ConvTranspose', 'Unpool',
    'complex'
]
