from torchstain.numpy.utils.rgb2lab import *
from torchstain.numpy.utils.lab2rgb import *
from torchstain.numpy.utils.split import *
from torchstain.numpy.utils.stats import *
