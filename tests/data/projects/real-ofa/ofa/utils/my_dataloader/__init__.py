from .my_distributed_sampler import *
from .my_random_resize_crop import *
