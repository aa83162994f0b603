from .constants import BINARY_MODE, MULTICLASS_MODE, MULTILABEL_MODE

from .jaccard import JaccardLoss
from .dice import DiceLoss
from .focal import FocalLoss
from .lovasz import LovaszLoss
from .soft_bce import SoftBCEWithLogitsLoss
from .soft_ce import SoftCrossEntropyLoss
from .tversky import TverskyLoss
from .hybrid_loss import HybridLoss
from .bcl import BCLLoss
