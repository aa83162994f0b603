# Copyright (c) OpenMMLab. All rights reserved.
from .data_sample import DataSample
from .multi_task_data_sample import MultiTaskDataSample
from .utils import (batch_label_to_onehot, cat_batch_labels, format_label,
                    format_score, label_to_onehot, tensor_split)

__all__ = [
    'DataSample', 'batch_label_to_onehot', 'cat_batch_labels', 'tensor_split',
    'MultiTaskDataSample', 'label_to_onehot', 'format_label', 'format_score'
]
