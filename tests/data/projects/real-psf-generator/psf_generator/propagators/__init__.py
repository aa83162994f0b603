# Copyright Biomedical Imaging Group, EPFL 2025

from .scalar_cartesian_propagator import ScalarCartesianPropagator
from .scalar_spherical_propagator import ScalarSphericalPropagator
from .vectorial_cartesian_propagator import VectorialCartesianPropagator
from .vectorial_spherical_propagator import VectorialSphericalPropagator

__all__ = [
    'ScalarCartesianPropagator',
    'ScalarSphericalPropagator',
    'VectorialCartesianPropagator',
    'VectorialSphericalPropagator',
]
