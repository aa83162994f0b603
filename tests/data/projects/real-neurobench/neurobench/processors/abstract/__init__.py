from .preprocessor import NeuroBenchPreProcessor
from .postprocessor import NeuroBenchPostProcessor

__all__ = ["NeuroBenchPreProcessor", "NeuroBenchPostProcessor"]
