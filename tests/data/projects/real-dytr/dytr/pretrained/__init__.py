"""
Pretrained model loading utilities for dytr.

This module provides functionality to load pretrained models from HuggingFace
without requiring the transformers library.

Author: Dr. Akram Alsubari
Email: akram.alsubari@outlook.com / akram.alsubari87@gmail.com
"""

from dytr.pretrained.loader import PretrainedModelLoader

__all__ = ["PretrainedModelLoader"]
