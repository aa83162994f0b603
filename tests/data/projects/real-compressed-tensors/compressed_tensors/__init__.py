# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
# isort: off
from .logger import LoggerConfig, configure_logger, logger
from .base import *

from .compressors import *
from .config import *
from .quantization import QuantizationConfig, QuantizationStatus

# avoid resolving compressed_tensors.offload as compressed_tensors.utils.offload
from .utils.offload import *
from .utils.helpers import *
from .utils.internal import *
from .utils.match import *
from .utils.permutations_24 import *
from .utils.safetensors_load import *
from .utils.semi_structured_conversions import *
from .utils.type import *
from .version import *
