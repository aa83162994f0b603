from super_gradients.training.models.detection_models.yolo_nas.dfl_heads import YoloNASDFLHead, NDFLHeads

from super_gradients.training.models.detection_models.yolo_nas.panneck import YoloNASPANNeckWithC2

from super_gradients.training.models.detection_models.yolo_nas.yolo_stages import (
    YoloNASStage,
    YoloNASStem,
    YoloNASDownStage,
    YoloNASUpStage,
    YoloNASBottleneck,
)
from super_gradients.training.models.detection_models.yolo_nas.yolo_nas_variants import YoloNAS_S, YoloNAS_M, YoloNAS_L

__all__ = [
    "YoloNASBottleneck",
    "YoloNASUpStage",
    "YoloNASDownStage",
    "YoloNASStem",
    "YoloNASStage",
    "NDFLHeads",
    "YoloNASDFLHead",
    "YoloNASPANNeckWithC2",
    "YoloNAS_S",
    "YoloNAS_M",
    "YoloNAS_L",
]
