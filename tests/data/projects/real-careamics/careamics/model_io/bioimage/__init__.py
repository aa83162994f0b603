"""Bioimage Model Zoo format functions."""

from .bioimage_utils import get_env_file, get_unzip_path
from .model_description import create_model_description, extract_model_path

__all__ = [
    "create_model_description",
    "extract_model_path",
    "get_env_file",
    "get_unzip_path",
]
