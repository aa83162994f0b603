from pl_bolts.models.self_supervised.cpc.cpc_module import CPC_v2
from pl_bolts.models.self_supervised.cpc.networks import cpc_resnet50, cpc_resnet101
from pl_bolts.transforms.self_supervised.cpc_transforms import (
    CPCEvalTransformsCIFAR10,
    CPCEvalTransformsImageNet128,
    CPCEvalTransformsSTL10,
    CPCTrainTransformsCIFAR10,
    CPCTrainTransformsImageNet128,
    CPCTrainTransformsSTL10,
)

__all__ = [
    "CPC_v2",
    "cpc_resnet50",
    "cpc_resnet101",
    "CPCEvalTransformsCIFAR10",
    "CPCEvalTransformsImageNet128",
    "CPCEvalTransformsSTL10",
    "CPCTrainTransformsCIFAR10",
    "CPCTrainTransformsImageNet128",
    "CPCTrainTransformsSTL10",
]
