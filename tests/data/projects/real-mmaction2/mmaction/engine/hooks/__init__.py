# Copyright (c) OpenMMLab. All rights reserved.
from .output import OutputHook
from .visualization_hook import VisualizationHook

__all__ = ['OutputHook', 'VisualizationHook']
