from dp_lora.grad_sample.hooks import linear_forward_hook, linear_backward_hook
from dp_lora.grad_sample.grad_sample_module import GradSampleModule
from dp_lora.grad_sample.ghost_clipping import GhostClippingModule

__all__ = [
    "linear_forward_hook",
    "linear_backward_hook",
    "GradSampleModule",
    "GhostClippingModule",
]
