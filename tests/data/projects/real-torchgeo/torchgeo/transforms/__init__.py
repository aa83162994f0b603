# Copyright (c) TorchGeo Contributors. All rights reserved.
# Licensed under the MIT License.

"""TorchGeo transforms."""

from .color import RandomGrayscale
from .indices import (
    AppendBNDVI,
    AppendGBNDVI,
    AppendGNDVI,
    AppendGRNDVI,
    AppendNBR,
    AppendNDBI,
    AppendNDRE,
    AppendNDSI,
    AppendNDVI,
    AppendNDWI,
    AppendNormalizedDifferenceIndex,
    AppendRBNDVI,
    AppendSWI,
    AppendTriBandNormalizedDifferenceIndex,
)
from .spatial import SatSlideMix
from .temporal import Rearrange

__all__ = (
    'AppendBNDVI',
    'AppendGBNDVI',
    'AppendGNDVI',
    'AppendGRNDVI',
    'AppendNBR',
    'AppendNDBI',
    'AppendNDRE',
    'AppendNDSI',
    'AppendNDVI',
    'AppendNDWI',
    'AppendNormalizedDifferenceIndex',
    'AppendRBNDVI',
    'AppendSWI',
    'AppendTriBandNormalizedDifferenceIndex',
    'RandomGrayscale',
    'Rearrange',
    'SatSlideMix',
)
