from .core.extraction import get_extractor, get_extractor_from_model
from ._version import __version__
