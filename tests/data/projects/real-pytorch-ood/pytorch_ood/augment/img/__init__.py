"""
Augmentations for computer vision tasks.
"""

from .cocopaste import COCO, InsertCOCO
from .pixmix import PixMixDataset
