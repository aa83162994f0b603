from .l2x import L2XTextExplainer
from .lime import LimeTextExplainer


__all__ = ["LimeTextExplainer", "L2XTextExplainer", "SSWARM"]
