from pytorch_optimizer.loss import *  # noqa: F403
from pytorch_optimizer.lr_scheduler import *  # noqa: F403
from pytorch_optimizer.optimizer import *  # noqa: F403
from pytorch_optimizer.optimizer.utils.gradient import (
    clip_grad_norm,
    get_global_gradient_norm,
    normalize_gradient,
    unit_norm,
)
from pytorch_optimizer.optimizer.utils.model import disable_running_stats, enable_running_stats
from pytorch_optimizer.optimizer.utils.offload import CPUOffloadOptimizer
from pytorch_optimizer.optimizer.utils.precision import copy_stochastic
