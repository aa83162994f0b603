"""
Implementation of Radial Flows (RadialFlow) proposed
in (https://arxiv.org/abs/1505.05770)
"""

from .radial_flow_config import RadialFlowConfig
from .radial_flow_model import RadialFlow

__all__ = ["RadialFlow", "RadialFlowConfig"]
