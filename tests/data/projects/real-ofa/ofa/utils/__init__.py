# Once for All: Train One Network and Specialize it for Efficient Deployment
# Han Cai, Chuang Gan, Tianzhe Wang, Zhekai Zhang, Song Han
# International Conference on Learning Representations (ICLR), 2020.

from .pytorch_modules import *
from .pytorch_utils import *
from .my_modules import *
from .flops_counter import *
from .common_tools import *
from .my_dataloader import *
