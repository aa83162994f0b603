from .feature_embedding import *
from .pretrained_embedding import *
