from importlib.metadata import version

from .RAGModel import RAGMultiModalModel

__version__ = version("Byaldi")
__all__ = ["RAGMultiModalModel"]
