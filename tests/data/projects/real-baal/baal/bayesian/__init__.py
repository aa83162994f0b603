from .dropout import Dropout
from .consistent_dropout import ConsistentDropout
from .weight_drop import MCDropoutConnectModule
