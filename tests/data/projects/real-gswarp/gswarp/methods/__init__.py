"""Public method specifications."""

from .baseline_3dgs import METHOD as BASELINE_3DGS
from .flow_aux import METHOD as FLOW_AUX

__all__ = ["BASELINE_3DGS", "FLOW_AUX"]
