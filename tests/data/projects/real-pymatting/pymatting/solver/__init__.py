from pymatting.solver.cg import cg
from pymatting.solver.callback import CounterCallback, ProgressCallback
