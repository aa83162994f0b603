from .seg_detector import SegDetector
from .seg_detector_asf import SegSpatialScaleDetector
from .dice_loss import DiceLoss
from .pss_loss import PSS_Loss
from .l1_loss import MaskL1Loss
from .balance_cross_entropy_loss import BalanceCrossEntropyLoss
