__version__ = '1.3.0'

from torchstain.base import augmentors, normalizers