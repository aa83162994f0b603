from torchstain.tf.utils.cov import cov
from torchstain.tf.utils.percentile import percentile
from torchstain.tf.utils.solveLS import solveLS
from torchstain.tf.utils.stats import *
from torchstain.tf.utils.split import *
from torchstain.tf.utils.rgb2lab import *
from torchstain.tf.utils.lab2rgb import *
