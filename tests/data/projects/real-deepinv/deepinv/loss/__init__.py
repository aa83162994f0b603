from .mc import MCLoss
from .ei import EILoss
from .es import EquivariantSplittingLoss
from .moi import MOILoss, MOEILoss
from .sup import SupLoss, ReducedResolutionLoss
from .score import ScoreLoss
from .tv import TVLoss
from .r2r import R2RLoss
from .sure import SureGaussianLoss, SurePoissonLoss, SurePGLoss
from .regularisers import JacobianSpectralNorm, FNEJacobianSpectralNorm
from .measplit import SplittingLoss, Neighbor2Neighbor
from .loss import Loss, StackedPhysicsLoss
from .scheduler import (
    BaseLossScheduler,
    RandomLossScheduler,
    InterleavedLossScheduler,
    StepLossScheduler,
    InterleavedEpochLossScheduler,
)

from . import metric
from . import adversarial
from . import mri

from .metric import (
    Metric,
    MSE,
    NMSE,
    PSNR,
    SSIM,
    LpNorm,
    L1L2,
    MAE,
    NIQE,
    LPIPS,
    BRISQUE,
    NIMA,
    QNR,
    cal_mse,
    cal_psnr,
    cal_mae,
    CosineSimilarity,
)

from .augmentation import AugmentConsistencyLoss
