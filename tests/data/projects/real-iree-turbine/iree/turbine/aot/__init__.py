"""
Toolkit for ahead-of-time (AOT) compilation and export of PyTorch programs.
"""

# Copyright 2023 Nod Labs, Inc
#
# Licensed under the Apache License v2.0 with LLVM Exceptions.
# See https://llvm.org/LICENSE.txt for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

from .builtins import *
from .compiled_module import *
from .decompositions import *
from .exporter import *
from .fx_programs import FxPrograms, FxProgramsBuilder
from .tensor_traits import *
from .params import *
