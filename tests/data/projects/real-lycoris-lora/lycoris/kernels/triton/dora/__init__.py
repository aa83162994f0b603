from .decompose import dora_bwd, dora_fwd

__all__ = ["dora_bwd", "dora_fwd"]
