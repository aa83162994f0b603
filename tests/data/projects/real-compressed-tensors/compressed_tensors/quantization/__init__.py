# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
# isort: skip_file

from .quant_args import *
from .quant_config import *
from .quant_metadata import *
from .quant_scheme import *
from .lifecycle import *
