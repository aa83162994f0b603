# Copyright (c) OpenMMLab. All rights reserved.
from .paconv import PAConv, PAConvCUDA

__all__ = ['PAConv', 'PAConvCUDA']
