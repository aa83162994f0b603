from .bounce_back_boundary import NativeBounceBackBoundary
from .equilibrium_pu import NativeEquilibriumBoundaryPu
from .no_boundary import NativeNoBoundary

__all__ = [
    'NativeBounceBackBoundary',
    'NativeEquilibriumBoundaryPu',
    'NativeNoBoundary',
]
