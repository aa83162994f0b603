# (C) Copyright 2024-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

from .builders.cutoff import CutOffEdges
from .builders.cutoff import ReversedCutOffEdges
from .builders.healpix import HEALPixMultiScaleEdges
from .builders.icon import ICONTopologicalDecoderEdges
from .builders.icon import ICONTopologicalEncoderEdges
from .builders.icon import ICONTopologicalProcessorEdges
from .builders.knn import KNNEdges
from .builders.knn import MutualKNNEdges
from .builders.knn import ReversedKNNEdges
from .builders.multi_scale import MultiScaleEdges

__all__ = [
    "KNNEdges",
    "MutualKNNEdges",
    "CutOffEdges",
    "HEALPixMultiScaleEdges",
    "MultiScaleEdges",
    "ReversedCutOffEdges",
    "ReversedKNNEdges",
    "ICONTopologicalProcessorEdges",
    "ICONTopologicalEncoderEdges",
    "ICONTopologicalDecoderEdges",
]
