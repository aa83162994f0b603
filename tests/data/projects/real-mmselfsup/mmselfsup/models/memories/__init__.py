# Copyright (c) OpenMMLab. All rights reserved.
from .odc_memory import ODCMemory
from .simple_memory import SimpleMemory

__all__ = ['ODCMemory', 'SimpleMemory']
