from .resnet import resnet18, resnet34, resnet50, resnet101, deformable_resnet50, deformable_resnet18
from .mobilenetv3 import mobilenet_v3_large, mobilenet_v3_small