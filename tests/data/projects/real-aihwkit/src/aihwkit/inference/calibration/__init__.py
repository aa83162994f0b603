# -*- coding: utf-8 -*-

# (C) Copyright 2026 IBM. All Rights Reserved.
#
# Licensed under the MIT license. See LICENSE file in the project root for details.

"""High level inference tools."""

# Convenience imports for easier access to the classes.
from .calibration import (
    InputRangeCalibrationType,
    calibrate_input_ranges,
    calibrate_quantization_ranges,
)
