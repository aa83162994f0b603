# flake8: noqa
from torch.optim import *

from catalyst.contrib.optimizers.adamp import AdamP
from catalyst.contrib.optimizers.lamb import Lamb
from catalyst.contrib.optimizers.lookahead import Lookahead
from catalyst.contrib.optimizers.qhadamw import QHAdamW
from catalyst.contrib.optimizers.radam import RAdam
from catalyst.contrib.optimizers.ralamb import Ralamb
from catalyst.contrib.optimizers.sgdp import SGDP
