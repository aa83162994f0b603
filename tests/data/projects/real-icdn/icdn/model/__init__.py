from .context import ProductTokenBuilder, SharedProductEncoder
from .demand import DemandCalculator
from .head import DemandParameterHead, IntegrableDemandHead
from .icdn import ICDN
from .loss import ElasticityLoss
from .neighbors import ProductMetadata, SparseNeighborSelector
from .splines import MultiCubicSplineBasis, SplineBuilder

__all__ = [
    "ICDN",
    "DemandCalculator",
    "DemandParameterHead",
    "ElasticityLoss",
    "IntegrableDemandHead",
    "MultiCubicSplineBasis",
    "ProductMetadata",
    "ProductTokenBuilder",
    "SharedProductEncoder",
    "SparseNeighborSelector",
    "SplineBuilder",
]
