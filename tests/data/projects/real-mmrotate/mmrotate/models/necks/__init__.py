# Copyright (c) OpenMMLab. All rights reserved.
from .re_fpn import ReFPN

__all__ = ['ReFPN']
