from .channel import ia3_bwd, ia3_fwd

__all__ = ["ia3_bwd", "ia3_fwd"]
