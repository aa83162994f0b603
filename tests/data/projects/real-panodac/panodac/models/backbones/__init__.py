"""Backbone models for feature extraction."""

from .resnet import Bottleneck, ResNet, _resnet
from .swin import SwinTransformer

__all__ = ["Bottleneck", "ResNet", "_resnet", "SwinTransformer"]
