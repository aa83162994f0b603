from . import dataset_arrays
from .parametric_umap import prep_parametric_umap_dataset

__all__ = [
    "dataset_arrays",
    "prep_parametric_umap_dataset",
]
