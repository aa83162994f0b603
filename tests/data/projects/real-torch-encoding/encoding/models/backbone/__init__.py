from .resnet import *
from .resnest import *
from .resnext import *
from .resnet_variants import *
from .wideresnet import *
from  .xception import *
