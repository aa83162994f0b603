from __future__ import absolute_import

from torchreid.reid.optim.optimizer import build_optimizer
from torchreid.reid.optim.lr_scheduler import build_lr_scheduler
