"""Patch extractors."""

__all__ = [
    "LimitFilesPatchExtractor",
    "PatchExtractor",
]

from .limit_file_extractor import LimitFilesPatchExtractor
from .patch_extractor import PatchExtractor
