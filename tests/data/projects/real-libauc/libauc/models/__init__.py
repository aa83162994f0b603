from .densenet import *
from .resnet import *
from .resnet_cifar import *
from .neumf import *
from .perceptron import *
from .mil_models import *
from .gnn import *