# Copyright (c) OpenMMLab. All rights reserved.
from .selfsup_data_sample import SelfSupDataSample

__all__ = ['SelfSupDataSample']
