from __future__ import annotations

from .__about__ import __version__ as __version__
from .config import RkPinnConfig as RkPinnConfig
from .interpolants import barycentric_weights as barycentric_weights
from .interpolants import differentiation_matrix as differentiation_matrix
from .interpolants import lagrange_eval as lagrange_eval
from .loss import RkPinnLoss as RkPinnLoss
from .mesh import TimeMesh as TimeMesh
from .model import MLP as MLP
from .operators import EllipticOperator as EllipticOperator
from .operators import Laplacian1D as Laplacian1D
from .operators import LaplacianND as LaplacianND
from .tableau import ButcherTableau as ButcherTableau
from .tableau import butcher_gauss_legendre_q2 as butcher_gauss_legendre_q2
from .tableau import butcher_gauss_legendre_q3 as butcher_gauss_legendre_q3
from .tableau import butcher_gauss_legendre_q4 as butcher_gauss_legendre_q4
from .tableau import butcher_lobatto_iiia_q2 as butcher_lobatto_iiia_q2
from .tableau import butcher_lobatto_iiia_q3 as butcher_lobatto_iiia_q3
from .tableau import butcher_lobatto_iiia_q4 as butcher_lobatto_iiia_q4
from .tableau import butcher_radau_iia_q2 as butcher_radau_iia_q2
from .tableau import butcher_radau_iia_q3 as butcher_radau_iia_q3
from .tableau import butcher_radau_iia_q4 as butcher_radau_iia_q4
from .tableau import collocation_tableau as collocation_tableau

__all__ = [
    "MLP",
    "ButcherTableau",
    "EllipticOperator",
    "Laplacian1D",
    "LaplacianND",
    "RkPinnConfig",
    "RkPinnLoss",
    "TimeMesh",
    "__version__",
    "barycentric_weights",
    "butcher_gauss_legendre_q2",
    "butcher_gauss_legendre_q3",
    "butcher_gauss_legendre_q4",
    "butcher_lobatto_iiia_q2",
    "butcher_lobatto_iiia_q3",
    "butcher_lobatto_iiia_q4",
    "butcher_radau_iia_q2",
    "butcher_radau_iia_q3",
    "butcher_radau_iia_q4",
    "collocation_tableau",
    "differentiation_matrix",
    "lagrange_eval",
]
