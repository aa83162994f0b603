# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from .delay import delay, Delay
from .delta import Delta

__all__ = [
    'delay', 'Delay',
    'Delta'
]
