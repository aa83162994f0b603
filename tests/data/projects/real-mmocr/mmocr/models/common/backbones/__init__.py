# Copyright (c) OpenMMLab. All rights reserved.
from .clip_resnet import CLIPResNet
from .unet import UNet

__all__ = ['UNet', 'CLIPResNet']
