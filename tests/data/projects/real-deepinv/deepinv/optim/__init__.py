from .data_fidelity import (
    DataFidelity,
    StackedPhysicsDataFidelity,
    L2,
    L1,
    IndicatorL2,
    PoissonLikelihood,
    AmplitudeLoss,
    LogPoissonLikelihood,
    ZeroFidelity,
    ItohFidelity,
)
from .optimizers import (
    BacktrackingConfig,
    DEQConfig,
    AndersonAccelerationConfig,
    optim_builder,
    BaseOptim,
    ADMM,
    DRS,
    GD,
    MD,
    HQS,
    PDCP,
    PGD,
    FISTA,
    PMD,
    SIRT,
    MLEM,
    OSEM,
    BSREM,
    BlindRL,
)
from .fixed_point import FixedPoint
from .prior import (
    Prior,
    ScorePrior,
    Tikhonov,
    PnP,
    RED,
    L1Prior,
    TVPrior,
    RDP,
    TVL1Prior,
    SmoothedTVPrior,
    PatchPrior,
    WaveletPrior,
    PatchNR,
    ZeroPrior,
    L12Prior,
)
from .optim_iterators import (
    OptimIterator,
    ADMMIteration,
    PGDIteration,
    FISTAIteration,
    PMDIteration,
    CPIteration,
    HQSIteration,
    DRSIteration,
    GDIteration,
    MDIteration,
    SMIteration,
    SIRTIteration,
    MLEMIteration,
    OSEMIteration,
    BSREMIteration,
    BlindRLIteration,
)
from .epll import EPLL
from .dpir import DPIR
from .bregman import Bregman, BurgEntropy, NegEntropy, BregmanL2, Bregman_ICNN
from .potential import Potential
from .distance import (
    Distance,
    L2Distance,
    IndicatorL2Distance,
    PoissonLikelihoodDistance,
    L1Distance,
    AmplitudeLossDistance,
    LogPoissonLikelihoodDistance,
    ZeroDistance,
)
from . import utils
from .linear import least_squares
