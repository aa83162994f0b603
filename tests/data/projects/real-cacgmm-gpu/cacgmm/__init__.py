from .cacgmm import CACGMM
from .cacgmm_trainer import CACGMMTrainer
from .cacg import ComplexAngularCentralGaussian
from .cacg_trainer import ComplexAngularCentralGaussianTrainer
