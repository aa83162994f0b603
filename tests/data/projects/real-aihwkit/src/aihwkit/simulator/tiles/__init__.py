# -*- coding: utf-8 -*-

# (C) Copyright 2026 IBM. All Rights Reserved.
#
# Licensed under the MIT license. See LICENSE file in the project root for details.

"""High level analog tiles."""

# Convenience imports for easier access to the classes.

from aihwkit.simulator.tiles.analog import AnalogTile
from aihwkit.simulator.tiles.floating_point import FloatingPointTile
from aihwkit.simulator.tiles.inference import InferenceTile, InferenceTileWithPeriphery
from aihwkit.simulator.tiles.inference_torch import TorchInferenceTile
from aihwkit.simulator.tiles.quantized_inference_torch import QuantizedTorchInferenceTile
