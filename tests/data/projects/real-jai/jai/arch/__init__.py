from .resnet import *

