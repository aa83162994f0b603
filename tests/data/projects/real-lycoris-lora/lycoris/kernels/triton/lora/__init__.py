from .merge import lora_tucker_fwd
from .rebuild import lora_merge, lora_merge_bwd
from .stream import lora_bypass_bwd, lora_bypass_fwd

__all__ = [
    "lora_bypass_bwd",
    "lora_bypass_fwd",
    "lora_merge",
    "lora_merge_bwd",
    "lora_tucker_fwd",
]
