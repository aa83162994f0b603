from revlib.core import (DUAL_OR_QUAD_TENSOR, MemoryModes, ReversibleModule, ReversibleModuleCache,
                         ReversibleSequential,
                         TensorOffload, additive_coupling_forward, additive_coupling_inverse, offload_tensor,
                         replace_grad, reverse_and_swap)

__all__ = ["ReversibleSequential", "ReversibleModule", "ReversibleModuleCache", "reverse_and_swap", "MemoryModes",
           "offload_tensor", "TensorOffload", "DUAL_OR_QUAD_TENSOR", "replace_grad", "additive_coupling_forward",
           "additive_coupling_inverse"]
