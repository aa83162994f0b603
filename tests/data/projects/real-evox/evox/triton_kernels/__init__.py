__all__ = [
    "has_triton",
    "triton_supports_device",
    "triton_device_types",
    "register_triton_device_type",
    "register_triton_op",
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

from .backend import has_triton, register_triton_device_type, triton_device_types, triton_supports_device
from .kernels import (
    compute_counter_offsets,
    compute_offsets,
    fused_add,
    generate_lora_factors,
    lora_delta_output,
    lora_gradient,
    philox_normal,
    philox_uniform,
    virtual_bias_gradient,
    virtual_perturbed_linear,
    virtual_weight_gradient,
)
from .op_register import register_triton_op
