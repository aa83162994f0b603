# Copyright (C) 2023 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import metrics
from . import utils

__all__ = ['metrics', 'utils']
