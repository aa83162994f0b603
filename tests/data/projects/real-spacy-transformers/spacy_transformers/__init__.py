from . import architectures
from . import annotation_setters
from . import span_getters
from .layers import TransformerModel
from .pipeline_component import Transformer, install_extensions
from .data_classes import TransformerData, FullTransformerBatch
from .util import registry


__all__ = [
    "install_extensions",
    "Transformer",
    "TransformerModel",
    "TransformerData",
    "FullTransformerBatch",
    "architectures",
    "annotation_setters",
    "span_getters",
    "registry",
]
