from .policy_gradient import REINFORCE, GPOMDP, eNAC
from .black_box_optimization import RWR, PGPE, REPS, ConstrainedREPS, MORE


__all__ = ['REINFORCE', 'GPOMDP', 'eNAC', 'RWR', 'PGPE', 'REPS', 'ConstrainedREPS', 'MORE']
