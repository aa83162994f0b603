# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from .spike import Spike
from . import complex

__all__ = ['Spike', 'complex']
