# Copyright (c) OpenMMLab. All rights reserved.
from .knn_eval import knn_eval

__all__ = ['knn_eval']
