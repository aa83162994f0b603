# Copyright Biomedical Imaging Group, EPFL 2025
from .propagators import (
    ScalarCartesianPropagator,
    ScalarSphericalPropagator,
    VectorialCartesianPropagator,
    VectorialSphericalPropagator,
)
