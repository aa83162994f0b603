# Copyright (c) OpenMMLab. All rights reserved.
from .selfsup_visualizer import SelfSupVisualizer

__all__ = ['SelfSupVisualizer']
