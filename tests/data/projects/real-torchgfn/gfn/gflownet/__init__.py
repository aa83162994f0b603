from .base import GFlowNet, PFBasedGFlowNet, TrajectoryBasedGFlowNet
from .detailed_balance import DBGFlowNet, ModifiedDBGFlowNet
from .flow_matching import FMGFlowNet
from .losses import (
    HalfSquaredLoss,
    LinexLoss,
    RegressionLoss,
    ShiftedCoshLoss,
    SquaredLoss,
)
from .sub_trajectory_balance import SubTBGFlowNet
from .trajectory_balance import (
    LogPartitionVarianceGFlowNet,
    RelativeLogPartitionVarianceGFlowNet,
    RelativeTBBase,
    RelativeTrajectoryBalanceGFlowNet,
    TBGFlowNet,
    TrustPCLGFlowNet,
)

__all__ = [
    "GFlowNet",
    "PFBasedGFlowNet",
    "TrajectoryBasedGFlowNet",
    "DBGFlowNet",
    "ModifiedDBGFlowNet",
    "FMGFlowNet",
    "SubTBGFlowNet",
    "LogPartitionVarianceGFlowNet",
    "RelativeLogPartitionVarianceGFlowNet",
    "RelativeTBBase",
    "RelativeTrajectoryBalanceGFlowNet",
    "TBGFlowNet",
    "TrustPCLGFlowNet",
    "RegressionLoss",
    "SquaredLoss",
    "HalfSquaredLoss",
    "ShiftedCoshLoss",
    "LinexLoss",
]
