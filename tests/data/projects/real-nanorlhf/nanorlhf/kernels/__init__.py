from nanorlhf.kernels.api import (
    flash_attn_func,
    flash_attn_varlen_func,
    rms_norm,
    pad_input,
    unpad_input,
)
from nanorlhf.kernels.patch import patch_kernel
