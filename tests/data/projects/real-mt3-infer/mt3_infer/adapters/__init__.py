"""MT3-Infer adapters for various MT3 implementations."""

from mt3_infer.adapters.mr_mt3 import MRMT3Adapter
from mt3_infer.adapters.mt3_pytorch import MT3PyTorchAdapter
from mt3_infer.adapters.yourmt3 import YourMT3Adapter

__all__ = ["MRMT3Adapter", "MT3PyTorchAdapter", "YourMT3Adapter"]
