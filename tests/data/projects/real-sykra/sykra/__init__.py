# sykra/__init__.py
"""
Sykra: A 3:1 Hybrid Gated DeltaNet + Multi-Head Self-Attention Transformer Architecture.
"""

from .configuration_sykra import SykraConfig
from .modeling_sykra import (
    SykraPreTrainedModel,
    SykraModel,
    SykraForCausalLM,
    SykraDeltaLayer,
    SykraFullAttention,
    SykraRMSNorm,
)

# Optional TPU utilities
try:
    from .tpu_kernel import TPUGatedDeltaLayer, SykraTPUTrainer, train_on_tpu
except ImportError:
    pass

__version__ = "0.3.6"
__all__ = [
    "SykraConfig",
    "SykraPreTrainedModel",
    "SykraModel",
    "SykraForCausalLM",
    "SykraDeltaLayer",
    "SykraFullAttention",
    "SykraRMSNorm",
    "TPUGatedDeltaLayer",
    "SykraTPUTrainer",
    "train_on_tpu",
]
