"""
Vectors import
"""

from .base import Vectors
from .external import External
from .factory import VectorsFactory
from .huggingface import HFVectors
from .litellm import LiteLLM
from .llama import LlamaCpp
from .m2v import Model2Vec
from .recovery import Recovery
from .sbert import STVectors
from .words import WordVectors
