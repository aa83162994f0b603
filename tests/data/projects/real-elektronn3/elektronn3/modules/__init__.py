from .layers import *
from .loss import (
    DiceLoss, FocalLoss, LovaszLoss, CombinedLoss, NorpfDiceLoss, ACLoss,
    GAPTripletMarginLoss, FixMatchSegLoss, MaskedMSELoss
)
