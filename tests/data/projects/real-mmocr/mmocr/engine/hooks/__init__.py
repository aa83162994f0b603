# Copyright (c) OpenMMLab. All rights reserved.
from .visualization_hook import VisualizationHook

__all__ = ['VisualizationHook']
