from .nmnist import NMNIST
from .dvs_gesture import DVSGesture
from .shd import SHD


__all__ = ("NMNIST", "DVSGesture", "SHD")
