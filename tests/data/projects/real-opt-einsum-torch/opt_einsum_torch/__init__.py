from .einsum import einsum
from .planner import EinsumPlanner
