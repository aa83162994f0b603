"""Offload engines: activations (`activation`), weight placement (`weights/`: block
streaming, layer streaming, shared host memory), optimiser and gradient offload
(`optim/`) and frozen-encoder placement (`encoders/`)."""

from kohakumoss.offload.activation import ActivationOffload
from kohakumoss.offload.optim.cpu_optim import CPUAdamW
from kohakumoss.offload.optim.fused_step import FusedStep, PerParamOptimizer
from kohakumoss.offload.optim.grad import GradOffload
from kohakumoss.offload.weights.layers import LayerStreamer
from kohakumoss.offload.weights.stream import StreamedWeight, WeightStream

__all__ = [
    "ActivationOffload",
    "CPUAdamW",
    "FusedStep",
    "GradOffload",
    "LayerStreamer",
    "PerParamOptimizer",
    "StreamedWeight",
    "WeightStream",
]
