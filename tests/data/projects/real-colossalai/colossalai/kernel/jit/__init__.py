from .bias_dropout_add import bias_dropout_add_fused_inference, bias_dropout_add_fused_train
from .bias_gelu import bias_gelu_impl
from .option import set_jit_fusion_options

__all__ = [
    "bias_dropout_add_fused_train",
    "bias_dropout_add_fused_inference",
    "bias_gelu_impl",
    "set_jit_fusion_options",
]
