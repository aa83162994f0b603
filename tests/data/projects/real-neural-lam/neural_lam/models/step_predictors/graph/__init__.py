"""
Graph-based step predictors.
"""

# Local
from .base import BaseGraphModel
from .graph_lam import GraphLAM
from .hi_lam import HiLAM
from .hi_lam_parallel import HiLAMParallel
from .hierarchical import BaseHiGraphModel
