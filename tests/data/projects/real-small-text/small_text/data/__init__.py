from small_text.data.datasets import (
    check_size,
    check_dataset_and_labels,
    check_target_labels,
    Dataset,
    DatasetView,
    SklearnDatasetView,
    TextDatasetView,
    get_updated_target_labels,
    is_multi_label,
    select,
    SklearnDataset,
    TextDataset,
    split_data
)
from small_text.data.sampling import (
    balanced_sampling,
    multilabel_stratified_subsets_sampling,
    stratified_sampling
)
from small_text.data.exceptions import UnsupportedOperationException


__all__ = [
    'check_size',
    'check_dataset_and_labels',
    'check_target_labels',
    'Dataset',
    'DatasetView',
    'get_updated_target_labels',
    'is_multi_label',
    'select',
    'SklearnDataset',
    'SklearnDatasetView',
    'TextDataset',
    'TextDatasetView',
    'split_data',
    'balanced_sampling',
    'multilabel_stratified_subsets_sampling',
    'stratified_sampling',
    'UnsupportedOperationException'
]
