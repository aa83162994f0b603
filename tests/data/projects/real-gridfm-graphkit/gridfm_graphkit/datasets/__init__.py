from gridfm_graphkit.datasets.normalizers import (
    HeteroDataMVANormalizer,
)
from gridfm_graphkit.datasets.task_transforms import (
    PowerFlowTransforms,
    OptimalPowerFlowTransforms,
    StateEstimationTransforms,
)

__all__ = [
    "HeteroDataMVANormalizer",
    "PowerFlowTransforms",
    "OptimalPowerFlowTransforms",
    "StateEstimationTransforms",
]
