"""Optional PyTorch Lightning integration: modules, datamodule, callbacks, and metrics."""

from torch_pointcloud.lightning.callbacks import BNMomentumScheduler, MetricCallback
from torch_pointcloud.lightning.datamodule import PointCloudDataModule
from torch_pointcloud.lightning.metrics import (
    BoxAveragePrecision,
    BoxMeanAveragePrecision,
    InstanceAveragePrecision,
    InstancePartMeanIntersectionOverUnion,
    NuScenesDetection,
)
from torch_pointcloud.lightning.module import (
    LitClassificationModel,
    LitDetectionModel,
    LitModel,
    LitPartSegmentationModel,
    LitSemanticSegmentationModel,
)

__all__ = [
    "BNMomentumScheduler",
    "MetricCallback",
    "PointCloudDataModule",
    "BoxAveragePrecision",
    "BoxMeanAveragePrecision",
    "InstanceAveragePrecision",
    "InstancePartMeanIntersectionOverUnion",
    "NuScenesDetection",
    "LitClassificationModel",
    "LitDetectionModel",
    "LitModel",
    "LitPartSegmentationModel",
    "LitSemanticSegmentationModel",
]
