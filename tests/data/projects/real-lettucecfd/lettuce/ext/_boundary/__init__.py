from .anti_bounce_back_outlet import AntiBounceBackOutlet
from .bounce_back_boundary import BounceBackBoundary
from .equilibrium_boundary_pu import EquilibriumBoundaryPU
from .equilibrium_outlet_p import EquilibriumOutletP
from .partially_saturated_boundary import PartiallySaturatedBC

__all__ = [
    'AntiBounceBackOutlet',
    'BounceBackBoundary',
    'EquilibriumBoundaryPU',
    'EquilibriumOutletP',
    'PartiallySaturatedBC'
]
