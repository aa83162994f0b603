from .basis_tensor import GenericBasisTensor, GaussianRBFTensor, VonMisesBFTensor
from .constant_tensor import ConstantTensor
from .random_fourier_tensor import RandomFourierBasis

__all_ = ['GenericBasisTensor', 'GaussianRBFTensor',  'VonMisesBFTensor', 'ConstantTensor', 'RandomFourierBasis']