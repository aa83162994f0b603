from ..nets.mlp import MLP
from ..nets.resnet import ConvResidualNet, ResidualNet
