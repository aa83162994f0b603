from refiners.foundationals.latent_diffusion.solvers.ddim import DDIM
from refiners.foundationals.latent_diffusion.solvers.ddpm import DDPM
from refiners.foundationals.latent_diffusion.solvers.dpm import DPMSolver
from refiners.foundationals.latent_diffusion.solvers.euler import Euler
from refiners.foundationals.latent_diffusion.solvers.lcm import LCMSolver
from refiners.foundationals.latent_diffusion.solvers.solver import (
    ModelPredictionType,
    NoiseSchedule,
    Solver,
    SolverParams,
    TimestepSpacing,
)

__all__ = [
    "Solver",
    "SolverParams",
    "DPMSolver",
    "DDPM",
    "DDIM",
    "Euler",
    "LCMSolver",
    "ModelPredictionType",
    "NoiseSchedule",
    "TimestepSpacing",
]
