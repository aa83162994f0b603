"""Module Description.

- Author: Jongkuk Lim
- Contact: lim.jeikei@gmail.com
"""
from kindle.utils.model_utils import ModelInfoLogger, ModelProfiler

__all__ = ["ModelProfiler", "ModelInfoLogger"]
