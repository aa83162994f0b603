from .block_optim import BlockOptimizer, BlockOptimizerRatio
from .utils import clip_grad_norm_old_version, BAdamCallback