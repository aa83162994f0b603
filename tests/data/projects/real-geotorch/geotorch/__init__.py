from .constraints import (
    sphere,
    skew,
    symmetric,
    orthogonal,
    grassmannian,
    almost_orthogonal,
    low_rank,
    fixed_rank,
    invertible,
    sln,
    positive_definite,
    positive_semidefinite,
    positive_semidefinite_low_rank,
    positive_semidefinite_fixed_rank,
    alpha_stable,
)
from .product import ProductManifold
from .reals import Rn
from .skew import Skew
from .symmetric import Symmetric
from .so import SO
from .sphere import Sphere, SphereEmbedded
from .stiefel import Stiefel
from .grassmannian import Grassmannian
from .almostorthogonal import AlmostOrthogonal
from .lowrank import LowRank
from .fixedrank import FixedRank
from .glp import GLp
from .sl import SL
from .psd import PSD
from .pssd import PSSD
from .pssdfixedrank import PSSDFixedRank
from .pssdlowrank import PSSDLowRank
from .hurwitz import Hurwitz
from .utils import update_base

__version__ = "0.4.0"


__all__ = [
    "ProductManifold",
    "Grassmannian",
    "LowRank",
    "Rn",
    "Skew",
    "Symmetric",
    "SO",
    "Sphere",
    "SphereEmbedded",
    "Stiefel",
    "AlmostOrthogonal",
    "GLp",
    "SL",
    "FixedRank",
    "PSD",
    "PSSD",
    "PSSDLowRank",
    "PSSDFixedRank",
    "Hurwitz",
    "skew",
    "symmetric",
    "sphere",
    "orthogonal",
    "grassmannian",
    "low_rank",
    "fixed_rank",
    "almost_orthogonal",
    "invertible",
    "sln",
    "positive_definite",
    "positive_semidefinite",
    "positive_semidefinite_low_rank",
    "positive_semidefinite_fixed_rank",
    "alpha_stable",
    "update_base",
]
