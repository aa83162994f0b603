# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa

from .base import *

# New per-format directories
from .dense import *
from .model_compressors import *
from .mxfp4 import *
from .mxfp6 import *
from .mxfp8 import *
from .naive_quantized import *
from .nvfp4 import *
from .pack_quantized import *
