"""Input/Output module for trajectories and data."""

from .cfl import traj2cfl, cfl2traj
from .nsp import read_trajectory, write_trajectory, read_arbgrad_rawdat
from .siemens import read_siemens_rawdat
from .pulseq import read_pulseq_traj, pulseq_gre

__all__ = [
    "cfl2traj",
    "pulseq_gre",
    "read_arbgrad_rawdat",
    "read_pulseq_traj",
    "read_siemens_rawdat",
    "read_trajectory",
    "traj2cfl",
    "write_trajectory",
]
