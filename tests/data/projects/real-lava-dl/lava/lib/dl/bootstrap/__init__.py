# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause


from .block.base import Mode
from . import block, ann_sampler, routine

__all__ = ['block', 'ann_sampler', 'routine', 'Mode']
