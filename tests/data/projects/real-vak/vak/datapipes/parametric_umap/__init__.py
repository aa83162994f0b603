from .metadata import Metadata
from .parametric_umap import Datapipe

__all__ = [
    "InferDatapipe",
    "Metadata",
    "Datapipe",
]
