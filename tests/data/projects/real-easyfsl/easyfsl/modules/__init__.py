from .resnet import ResNet  # isort:skip
from .attention_modules import MultiHeadAttention
from .feat_resnet12 import feat_resnet12
from .predesigned_modules import *
