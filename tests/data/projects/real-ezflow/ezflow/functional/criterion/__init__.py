from .multiscale import MultiScaleLoss
from .offset import FlowOffsetLoss, OffsetCrossEntropyLoss
from .sequence import SequenceLoss
