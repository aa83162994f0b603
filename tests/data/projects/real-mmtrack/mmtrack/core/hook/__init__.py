# Copyright (c) OpenMMLab. All rights reserved.
from .yolox_mode_switch_hook import YOLOXModeSwitchHook

__all__ = ['YOLOXModeSwitchHook']
