from .base import Denoiser, Reconstructor
from .drunet import DRUNet
from .scunet import SCUNet
from .ae import AutoEncoder
from .dncnn import DnCNN
from .dsccp import DScCP
from .artifactremoval import ArtifactRemoval
from .tv import TVDenoiser, TVL1Denoiser
from .tgv import TGVDenoiser
from .wavdict import WaveletDenoiser, WaveletDictDenoiser
from .GSPnP import GSDRUNet
from .median import MedianFilter
from .dip import DeepImagePrior, ConvDecoder
from .diffunet import DiffUNet
from .swinir import SwinIR
from .PDNet import PDNet_PrimalBlock, PDNet_DualBlock
from .bm3d import BM3D
from .equivariant import EquivariantDenoiser, EquivariantReconstructor
from .epll import EPLLDenoiser
from .restormer import Restormer
from .icnn import ICNN
from .gan import (
    PatchGANDiscriminator,
    ESRGANDiscriminator,
    CSGMGenerator,
    DCGANGenerator,
    DCGANDiscriminator,
)
from .complex import to_complex_denoiser
from .dynamic import TimeAgnosticNet, TimeAveragingNet
from .varnet import VarNet
from .modl import MoDL
from .multispectral import PanNet
from .unet import UNet
from .ncsnpp import NCSNpp
from .guided_diffusion import ADMUNet
from .precond import EDMPrecond
from .ram import RAM
from .client import Client
from .deal import DEAL
from .mmse import MMSE
from .wrapper import (
    ScoreModelWrapper,
    DiffusersDenoiserWrapper,
    ComplexDenoiserWrapper,
    MinusOneOneDenoiserWrapper,
)
from .anscombe import (
    AnscombeDenoiser,
    generalized_anscombe_transform,
    inverse_generalized_anscombe_transform,
)
from .poisson2sparse import ConvLista, Poisson2Sparse
from .kernel_network import KernelIdentificationNetwork
from .bilateral import BilateralFilter
from .noise_level_estimation import WaveletNoiseEstimator, PatchCovarianceNoiseEstimator
from .srresnet import SRResNet
from .ffdnet import FFDNet
from .wiener import WienerDeconvolution

from .third_party import PromptIR, MPRNet
from .direct_mri import DIRECTModel
