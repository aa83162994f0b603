from .apply import boft_bwd, boft_fwd

__all__ = ["boft_bwd", "boft_fwd"]
