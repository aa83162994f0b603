# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import base, cuba

__all__ = ['base', 'cuba']
