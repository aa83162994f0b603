"""
Models imports
"""

from .models import Models
from .onnx import OnnxModel
from .pooling import *
from .registry import Registry
from .tokendetection import TokenDetection
