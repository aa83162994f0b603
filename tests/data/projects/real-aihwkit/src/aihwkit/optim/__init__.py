# -*- coding: utf-8 -*-

# (C) Copyright 2026 IBM. All Rights Reserved.
#
# Licensed under the MIT license. See LICENSE file in the project root for details.

"""Analog Optimizers."""

# Convenience imports for easier access to the classes.

from aihwkit.optim.analog_optimizer import AnalogOptimizer, AnalogSGD, AnalogAdam
