from .models import build_model
from .resnet_GN_WS import ResNet
