"""Tracking solvers for HOCT inference."""

from hoct.tracking._solver import ILPSolverConfig, solve_tracking
from hoct.tracking._tracklet_solver import TrackletSolver

__all__ = ["ILPSolverConfig", "TrackletSolver", "solve_tracking"]
