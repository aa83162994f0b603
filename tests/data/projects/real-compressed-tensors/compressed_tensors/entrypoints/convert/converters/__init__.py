# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
# isort: skip_file

from .base import *
from .ct_dequantizer import *
from .autoawq import *
from .modelopt_nvfp4 import *
from .fp8block_dequantizer import *
from .magnitude_expert_pruner import *
