# -*- coding: utf-8 -*-
from .unet import UNetModel, SuperResUNetModel


__all__ = ['UNetModel', 'SuperResUNetModel']
