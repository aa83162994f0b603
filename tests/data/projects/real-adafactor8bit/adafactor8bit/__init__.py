# Copyright (c) 2026 WANG YAN
# Licensed under the MIT License.

from .optimizer import Adafactor8Bit
from .routing import build_param_groups

__all__ = ["Adafactor8Bit", "build_param_groups"]
__version__ = "0.4.6"
