# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
from .base import *
from .dense import *
from .expert_sparsity import *
from .sparse_24_bitmask import *
from .sparse_bitmask import *
