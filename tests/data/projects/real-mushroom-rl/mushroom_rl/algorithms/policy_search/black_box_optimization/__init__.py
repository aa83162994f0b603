from .black_box_optimization import BlackBoxOptimization
from .rwr import RWR
from .reps import REPS
from .pgpe import PGPE
from .constrained_reps import ConstrainedREPS
from .more import MORE

__all__ = ['RWR', 'PGPE', 'REPS', 'ConstrainedREPS', 'MORE']