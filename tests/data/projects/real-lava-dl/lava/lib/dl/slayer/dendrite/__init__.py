# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from .sigma import Sigma

__all__ = ['Sigma']
