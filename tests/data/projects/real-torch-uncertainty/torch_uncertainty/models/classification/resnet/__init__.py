# ruff: noqa: F401
from .batched import batched_resnet
from .lpbnn import lpbnn_resnet
from .masked import masked_resnet
from .mimo import mimo_resnet
from .packed import packed_resnet
from .std import resnet
