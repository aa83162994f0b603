"""Backbone networks, head networks and tools for training."""

from .basenetworks import BaseNetwork
from .factory import Factory, local_checkpoint_path
from .heads import HeadNetwork
from .nets import Shell
from .running_cache import RunningCache
from .tracking_base import TrackingBase
from .tracking_heads import TBaseSingleImage, Tcaf
from .trainer import Trainer
from . import losses
