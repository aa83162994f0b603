"""
Pipeline imports
"""

from .audio import *
from .base import Pipeline
from .data import *
from .factory import PipelineFactory
from .hfmodel import HFModel
from .hfpipeline import HFPipeline
from .image import *
from .llm import *
from .llm import RAG as Extractor
from .nop import Nop
from .text import *
from .tensors import Tensors
from .train import *
