from .metric import Metric
from .distortion import (
    MSE,
    NMSE,
    NRMSE,
    PSNR,
    SNR,
    SSIM,
    LpNorm,
    L1L2,
    MAE,
    QNR,
    SpectralAngleMapper,
    ERGAS,
    HaarPSI,
    CosineSimilarity,
    GMSD,
    RecoveryCoefficient,
)
from .perceptual import NIQE, LPIPS, BRISQUE, NIMA, BlurStrength, SharpnessIndex
from .functional import cal_mse, cal_psnr, cal_mae, signal_noise_ratio
