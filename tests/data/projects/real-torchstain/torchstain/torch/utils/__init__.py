from torchstain.torch.utils.cov import cov
from torchstain.torch.utils.percentile import percentile
from torchstain.torch.utils.stats import *
from torchstain.torch.utils.split import *
from torchstain.torch.utils.rgb2lab import *
from torchstain.torch.utils.lab2rgb import *
