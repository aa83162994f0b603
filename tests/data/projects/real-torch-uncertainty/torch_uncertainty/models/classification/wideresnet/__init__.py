# ruff: noqa: F401
from .batched import batched_wideresnet28x10
from .masked import masked_wideresnet28x10
from .mimo import mimo_wideresnet28x10
from .packed import packed_wideresnet28x10
from .std import wideresnet28x10
