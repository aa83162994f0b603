from joetorch.optim.optim import get_optimiser, apply_weight_decay_with_prior
from joetorch.optim.schedule import cosine_schedule, step_schedule, flat_schedule
from joetorch.optim.train import train

__all__ = ['get_optimiser', 'apply_weight_decay_with_prior', 'cosine_schedule', 'step_schedule', 'flat_schedule', 'train']