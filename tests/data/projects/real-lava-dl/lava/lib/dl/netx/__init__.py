# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import hdf5
from . import blocks
from . import utils
from . import sequential_modules as modules

__all__ = ['hdf5', 'blocks', 'utils', 'modules']
