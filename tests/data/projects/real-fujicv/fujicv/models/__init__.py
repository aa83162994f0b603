"""Model building utilities."""

from fujicv.models.backbone import build_backbone, list_available_backbones
from fujicv.models.builder import ModelBuilder
from fujicv.models.custom_layers import AttentionPool, GeM, LinearBNDropout, SqueezeExcite
from fujicv.models.head import ClassificationHead, MultiLabelHead, RegressionHead
from fujicv.models.metric_heads import (
    AddMarginProduct,
    ArcMarginProduct,
    CosMarginProduct,
    SubCenterArcMarginProduct,
)

__all__ = [
    "build_backbone",
    "list_available_backbones",
    "ModelBuilder",
    "LinearBNDropout",
    "GeM",
    "AttentionPool",
    "SqueezeExcite",
    "ClassificationHead",
    "RegressionHead",
    "MultiLabelHead",
    "ArcMarginProduct",
    "AddMarginProduct",
    "CosMarginProduct",
    "SubCenterArcMarginProduct",
]
