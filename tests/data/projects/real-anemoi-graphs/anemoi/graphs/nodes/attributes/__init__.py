# (C) Copyright 2024- Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

from .area_weights import AnemoiDatasetVariableWeights
from .area_weights import CosineLatWeightedAttribute
from .area_weights import IsolatitudeAreaWeights
from .area_weights import MaskedPlanarAreaWeights
from .area_weights import PlanarAreaWeights
from .area_weights import SphericalAreaWeights
from .area_weights import UniformWeights
from .boolean_op import BooleanAndMask
from .boolean_op import BooleanNot
from .boolean_op import BooleanOrMask
from .masks import CutOutMask
from .masks import GridsMask
from .masks import LimitedAreaMask
from .masks import NonmissingAnemoiDatasetVariable
from .masks import NonzeroAnemoiDatasetVariable

__all__ = [
    "GridsMask",
    "SphericalAreaWeights",
    "PlanarAreaWeights",
    "UniformWeights",
    "CutOutMask",
    "LimitedAreaMask",
    "MaskedPlanarAreaWeights",
    "NonmissingAnemoiDatasetVariable",
    "NonzeroAnemoiDatasetVariable",
    "BooleanAndMask",
    "BooleanNot",
    "BooleanOrMask",
    "CosineLatWeightedAttribute",
    "IsolatitudeAreaWeights",
    "AnemoiDatasetVariableWeights",
]
