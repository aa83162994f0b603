from olaverse.data.datasets import (
    DATASETS,
    list_datasets,
    dataset_info,
    load_dataset,
)

__all__ = [
    "DATASETS",
    "list_datasets",
    "dataset_info",
    "load_dataset",
]
