# This file makes 'inference-pytorch' a package. 

from .transnetv2_pytorch import TransNetV2

__all__ = ['TransNetV2'] 
