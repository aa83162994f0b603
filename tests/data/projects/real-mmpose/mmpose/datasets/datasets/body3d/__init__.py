# Copyright (c) OpenMMLab. All rights reserved.
from .h36m_dataset import Human36mDataset

__all__ = ['Human36mDataset']
