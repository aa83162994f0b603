from .rotate import oft_bwd_full as oft_bwd
from .rotate import oft_fwd_full as oft_fwd
from .solve import MAX_BLOCK

__all__ = ["MAX_BLOCK", "oft_bwd", "oft_fwd"]
