from .foundations_models import mace_anicc, mace_mp, mace_off, mace_omol, mace_polar
from .lammps_mace import LAMMPS_MACE
from .mace import MACECalculator

__all__ = [
    "MACECalculator",
    "LAMMPS_MACE",
    "mace_mp",
    "mace_off",
    "mace_anicc",
    "mace_omol",
    "mace_polar",
]
