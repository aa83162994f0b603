#!/usr/bin/env python3
from . import keops
from .additive_structure_kernel import AdditiveStructureKernel
from .arc_kernel import ArcKernel
from .constant_kernel import ConstantKernel
from .cosine_kernel import CosineKernel
from .cylindrical_kernel import CylindricalKernel
from .distributional_input_kernel import DistributionalInputKernel
from .gaussian_symmetrized_kl_kernel import GaussianSymmetrizedKLKernel
from .grid_interpolation_kernel import GridInterpolationKernel
from .grid_kernel import GridKernel
from .hamming_kernel import HammingIMQKernel
from .index_kernel import IndexKernel
from .inducing_point_kernel import InducingPointKernel
from .kernel import AdditiveKernel, Kernel, ProductKernel
from .lcm_kernel import LCMKernel
from .linear_kernel import LinearKernel
from .matern52_kernel_grad import Matern52KernelGrad
from .matern_kernel import MaternKernel
from .multi_device_kernel import MultiDeviceKernel
from .multitask_kernel import MultitaskKernel
from .newton_girard_additive_kernel import NewtonGirardAdditiveKernel
from .periodic_kernel import PeriodicKernel
from .piecewise_polynomial_kernel import PiecewisePolynomialKernel
from .polynomial_kernel import PolynomialKernel
from .polynomial_kernel_grad import PolynomialKernelGrad
from .product_structure_kernel import ProductStructureKernel
from .rbf_kernel import RBFKernel
from .rbf_kernel_grad import RBFKernelGrad
from .rbf_kernel_gradgrad import RBFKernelGradGrad
from .rff_kernel import RFFKernel
from .rq_kernel import RQKernel
from .scale_kernel import ScaleKernel
from .spectral_delta_kernel import SpectralDeltaKernel
from .spectral_mixture_kernel import SpectralMixtureKernel

__all__ = [
    "keops",
    "Kernel",
    "ArcKernel",
    "AdditiveKernel",
    "AdditiveStructureKernel",
    "ConstantKernel",
    "CylindricalKernel",
    "MultiDeviceKernel",
    "CosineKernel",
    "DistributionalInputKernel",
    "GaussianSymmetrizedKLKernel",
    "GridKernel",
    "GridInterpolationKernel",
    "HammingIMQKernel",
    "IndexKernel",
    "InducingPointKernel",
    "LCMKernel",
    "LinearKernel",
    "MaternKernel",
    "MultitaskKernel",
    "NewtonGirardAdditiveKernel",
    "PeriodicKernel",
    "PiecewisePolynomialKernel",
    "PolynomialKernel",
    "PolynomialKernelGrad",
    "ProductKernel",
    "ProductStructureKernel",
    "RBFKernel",
    "RFFKernel",
    "RBFKernelGrad",
    "RBFKernelGradGrad",
    "RQKernel",
    "ScaleKernel",
    "SpectralDeltaKernel",
    "SpectralMixtureKernel",
    "Matern52KernelGrad",
]
