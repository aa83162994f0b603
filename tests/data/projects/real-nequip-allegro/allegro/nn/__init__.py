# This file is a part of the `allegro` package. Please see LICENSE and README at the root for information on using it.
from ._allegro import Allegro_Module
from .edgewise import EdgewiseReduce
from ._edgeembed import ProductTypeEmbedding
from .scalarembed import TwoBodyBesselScalarEmbed, TwoBodySplineScalarEmbed
from .tensorembed import TwoBodySphericalHarmonicTensorEmbed

__all__ = [
    "Allegro_Module",
    "EdgewiseReduce",
    "ProductTypeEmbedding",
    "TwoBodyBesselScalarEmbed",
    "TwoBodySplineScalarEmbed",
    "TwoBodySphericalHarmonicTensorEmbed",
]
