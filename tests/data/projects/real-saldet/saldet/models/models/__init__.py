from .pfan import PFAN
from .pgnet import PGNet
from .u2net import U2NET_full, U2NET_lite
