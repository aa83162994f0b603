# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa

from .helpers import *
from .internal import *
from .match import *
from .module import *
from .moe import *
from .mtp import *
from .offload import *
from .permutations_24 import *
from .safetensors_load import *
from .semi_structured_conversions import *
from .type import *
