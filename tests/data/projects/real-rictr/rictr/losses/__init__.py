from .kl import kl_divergence
from .mse import mse_loss, cosine_loss, smooth_l1_loss
from .attention import attention_loss

__all__ = [
    "kl_divergence",
    "mse_loss",
    "cosine_loss",
    "smooth_l1_loss",
    "attention_loss",
]

