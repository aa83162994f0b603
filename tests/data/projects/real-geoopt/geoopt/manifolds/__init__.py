from .base import Manifold
from .euclidean import Euclidean
from .stiefel import (
    Stiefel,
    EuclideanStiefel,
    CanonicalStiefel,
    EuclideanStiefelExact,
)
from .sphere import Sphere, SphereExact
from .birkhoff_polytope import BirkhoffPolytope
from .symmetric_positive_definite import SymmetricPositiveDefinite
from .siegel import UpperHalf, BoundedDomain
from .stereographic import (
    PoincareBall,
    PoincareBallExact,
    Stereographic,
    StereographicExact,
    SphereProjection,
    SphereProjectionExact,
)
from .product import ProductManifold, StereographicProductManifold
from .lorentz import Lorentz
from .scaled import Scaled
from . import (
    stereographic,
    birkhoff_polytope,
    euclidean,
    product,
    scaled,
    sphere,
    stiefel,
    symmetric_positive_definite,
    base,
)
