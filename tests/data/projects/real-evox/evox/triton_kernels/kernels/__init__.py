__all__ = [
    "fused_add",
    "philox_uniform",
    "philox_normal",
    "compute_counter_offsets",
    "generate_lora_factors",
    "lora_delta_output",
    "lora_gradient",
    "virtual_perturbed_linear",
    "virtual_weight_gradient",
    "virtual_bias_gradient",
    "compute_offsets",
]

from .fused_add import fused_add
from .lora_noise import (
    compute_counter_offsets,
    generate_lora_factors,
    lora_delta_output,
    lora_gradient,
)
from .philox import philox_normal, philox_uniform
from .virtual_noise import (
    compute_offsets,
    virtual_bias_gradient,
    virtual_perturbed_linear,
    virtual_weight_gradient,
)
