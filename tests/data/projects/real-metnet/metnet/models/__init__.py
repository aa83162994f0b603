"""Submodules for the models."""

from .metnet import MetNet
from .metnet2 import MetNet2
from .metnet_pv import MetNetPV
from .metnet_single_shot import MetNetSingleShot
