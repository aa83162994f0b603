from pl_bolts.models.self_supervised.amdim.amdim_module import AMDIM
from pl_bolts.models.self_supervised.amdim.networks import AMDIMEncoder
from pl_bolts.transforms.self_supervised.amdim_transforms import (
    AMDIMEvalTransformsCIFAR10,
    AMDIMEvalTransformsImageNet128,
    AMDIMEvalTransformsSTL10,
    AMDIMTrainTransformsCIFAR10,
    AMDIMTrainTransformsImageNet128,
    AMDIMTrainTransformsSTL10,
)

__all__ = [
    "AMDIM",
    "AMDIMEncoder",
    "AMDIMEvalTransformsCIFAR10",
    "AMDIMEvalTransformsImageNet128",
    "AMDIMEvalTransformsSTL10",
    "AMDIMTrainTransformsCIFAR10",
    "AMDIMTrainTransformsImageNet128",
    "AMDIMTrainTransformsSTL10",
]
