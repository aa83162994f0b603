from model2vec.model import StaticModel, quantize_model
from model2vec.version import __version__

__all__ = ["StaticModel", "quantize_model", "__version__"]
