# Copyright (c) TorchGeo Contributors. All rights reserved.
# Licensed under the MIT License.

"""TorchGeo samplers."""

from .batch import BatchGeoSampler, RandomBatchGeoSampler
from .constants import Units
from .single import GeoSampler, GridGeoSampler, PreChippedGeoSampler, RandomGeoSampler
from .utils import get_random_bounding_box, tile_to_chips

__all__ = (
    'BatchGeoSampler',
    'GeoSampler',
    'GridGeoSampler',
    'PreChippedGeoSampler',
    'RandomBatchGeoSampler',
    'RandomGeoSampler',
    'Units',
    'get_random_bounding_box',
    'tile_to_chips',
)
