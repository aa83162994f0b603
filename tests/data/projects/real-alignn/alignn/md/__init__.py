"""Pure-PyTorch MD integrators for ALIGNN-FF."""
from alignn.md.integrators import (
    VelocityVerlet, Langevin, NVTBerendsen, NVTBussi, NVTNoseHooverChain,
    run, maxwell_boltzmann,
)
from alignn.md.forces import AlignnForces
from alignn.md.relax import FIRE
__all__ = [
    "VelocityVerlet", "Langevin",
    "NVTBerendsen", "NVTBussi", "NVTNoseHooverChain",
    "FIRE",
    "run", "maxwell_boltzmann", "AlignnForces",
]
