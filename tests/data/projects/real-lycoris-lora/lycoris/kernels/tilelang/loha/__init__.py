from .hada import loha_bypass_bwd, loha_bypass_fwd, loha_merge, loha_merge_bwd

__all__ = ["loha_bypass_bwd", "loha_bypass_fwd", "loha_merge", "loha_merge_bwd"]
