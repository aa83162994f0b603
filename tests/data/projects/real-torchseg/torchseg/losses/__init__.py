from .constants import BINARY_MODE, MULTICLASS_MODE, MULTILABEL_MODE
from .dice import DiceLoss
from .focal import FocalLoss
from .jaccard import JaccardLoss
from .lovasz import LovaszLoss
from .mcc import MCCLoss
from .soft_bce import SoftBCEWithLogitsLoss
from .soft_ce import SoftCrossEntropyLoss
from .tversky import TverskyLoss

__all__ = (
    "BINARY_MODE",
    "MULTICLASS_MODE",
    "MULTILABEL_MODE",
    "DiceLoss",
    "FocalLoss",
    "JaccardLoss",
    "LovaszLoss",
    "MCCLoss",
    "SoftBCEWithLogitsLoss",
    "SoftCrossEntropyLoss",
    "TverskyLoss",
)
