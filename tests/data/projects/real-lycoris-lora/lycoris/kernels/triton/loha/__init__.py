from .hada import loha_merge, loha_merge_bwd
from .regen import loha_bypass_bwd, loha_bypass_fwd

__all__ = ["loha_bypass_bwd", "loha_bypass_fwd", "loha_merge", "loha_merge_bwd"]
