# ==================================
# Copyright: CEA-LIST/DIASI/SIALV/
# Author : Torchaug Developers
# License: CECILL-C
# ==================================

# ruff: noqa: F401

from ._kernel import (
    _BUILTIN_DATAPOINT_TYPES,
    _KERNEL_REGISTRY,
    _FillType,
    _FillTypeJIT,
    _kernel_ta_tensor_wrapper,
    _name_to_functional,
    _register_five_ten_crop_kernel_internal,
    _register_kernel_internal,
    register_kernel,
)
from ._tensor import (
    _get_batch_factor,
    _max_value,
    _transfer_tensor_on_device,
    is_pure_tensor,
)
