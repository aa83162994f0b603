# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .node import NodeTypeEmbed
from .node_tensor import AppendVectorFieldEmbed
from ._edge import (
    EdgeLengthNormalizer,
    BesselEdgeLengthEncoding,
    SphericalHarmonicEdgeAttrs,
    AddRadialCutoffToData,
)
from .cutoffs import PolynomialCutoff

__all__ = [
    NodeTypeEmbed,
    AppendVectorFieldEmbed,
    EdgeLengthNormalizer,
    BesselEdgeLengthEncoding,
    SphericalHarmonicEdgeAttrs,
    AddRadialCutoffToData,
    PolynomialCutoff,
]
