from . import densenet, resnet, wide_resnet
