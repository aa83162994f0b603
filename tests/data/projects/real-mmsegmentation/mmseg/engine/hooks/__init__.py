# Copyright (c) OpenMMLab. All rights reserved.
from .visualization_hook import SegVisualizationHook

__all__ = ['SegVisualizationHook']
