from ultrack.core.solve.solver.heuristic.heuristic_solver import HeuristicSolver
from ultrack.core.solve.solver.mip_solver import MIPSolver
