from .clahe import apply_lab_clahe
from .transforms import get_inference_transform
from .preprocessor import Preprocessor
from .patching import PatchExtractor
from .scaling import ImageScaler

__all__ = [
    "apply_lab_clahe",
    "get_inference_transform",
    "Preprocessor",
    "PatchExtractor",
    "ImageScaler",
]
