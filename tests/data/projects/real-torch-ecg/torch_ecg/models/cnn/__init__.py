""" """

from .densenet import DenseNet
from .mobilenet import MobileNetV1, MobileNetV2, MobileNetV3
from .multi_scopic import MultiScopicCNN
from .regnet import RegNet
from .resnet import ResNet
from .vgg import VGG16
from .xception import Xception

__all__ = [
    "DenseNet",
    "MobileNetV1",
    "MobileNetV2",
    "MobileNetV3",
    "MultiScopicCNN",
    "ResNet",
    "RegNet",
    "VGG16",
    "Xception",
]
