from .sampling import BaseSampling, sampling_builder
from .langevin import ULA, SKRock
from .diffusion import DDRM, DiffusionSampler, DiffPIR, DPS
from .sampling_iterators import (
    ULAIterator,
    SKRockIterator,
    SamplingIterator,
    SKROCKIterator,
    DiffusionIterator,
)
from . import diffusion_sde, sde_solver
from .noisy_datafidelity import (
    NoisyDataFidelity,
    ALDDataFidelity,
    ScoreSDEDataFidelity,
    ILVRDataFidelity,
    DPSDataFidelity,
    PiGDMDataFidelity,
    MomentMatchingDataFidelity,
)
from .diffusion_sde import (
    BaseSDE,
    DiffusionSDE,
    EDMDiffusionSDE,
    SongDiffusionSDE,
    FlowMatching,
    VarianceExplodingDiffusion,
    VariancePreservingDiffusion,
    PosteriorDiffusion,
)
from .sde_solver import (
    SDEOutput,
    BaseSDESolver,
    EulerSolver,
    HeunSolver,
    AncestralSolver,
    DDPMSolver,
    DDIMSolver,
)
