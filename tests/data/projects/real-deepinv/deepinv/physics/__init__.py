from .inpainting import Inpainting, Demosaicing
from .compressed_sensing import CompressedSensing
from .blur import (
    Blur,
    Downsampling,
    BlurFFT,
    SpaceVaryingBlur,
    Upsampling,
    DownsamplingMatlab,
    TiledSpaceVaryingBlur,
)
from .scattering import Scattering
from .range import Decolorize
from .haze import Haze
from .pet import PET
from .unmixing import HyperSpectralUnmixing
from .forward import (
    Denoising,
    Physics,
    StackedPhysics,
    ComposedPhysics,
    LinearPhysics,
    StackedLinearPhysics,
    ComposedLinearPhysics,
    DecomposablePhysics,
    adjoint_function,
    stack,
    compose,
)
from .virtual import VirtualLinearPhysics
from .noise import (
    NoiseModel,
    ZeroNoise,
    GaussianNoise,
    PoissonNoise,
    PoissonGaussianNoise,
    UniformNoise,
    UniformGaussianNoise,
    LogPoissonNoise,
    GammaNoise,
    SaltPepperNoise,
    FisherTippettNoise,
    RicianNoise,
    LaplaceNoise,
)
from .mri import MRI, DynamicMRI, SequentialMRI, MultiCoilMRI
from .wrappers import (
    PhysicsMultiScaler,
    LinearPhysicsMultiScaler,
    BlurMultiScaler,
    BlurFFTMultiScaler,
    InpaintingMultiScaler,
    PhysicsCropper,
    to_multiscale,
)
from .tomography import Tomography, TomographyWithAstra
from .functional.tomography_subsets import (
    get_subset_tensor,
    split_measurements,
    split_physics,
)
from .ultrasound import UltrasoundPlaneWave
from .lidar import SinglePhotonLidar
from .singlepixel import SinglePixelCamera
from .remote_sensing import Pansharpen

from .phase_retrieval import (
    PhaseRetrieval,
    RandomPhaseRetrieval,
    StructuredRandomPhaseRetrieval,
    PtychographyGeometry,
    FarFieldPtychographyGeometry,
    NearFieldPtychographyGeometry,
    PtychographyLinearOperator,
    Ptychography,
)
from .radio import RadioInterferometry
from .structured_random import StructuredRandom
from .cassi import CompressiveSpectralImaging

from .spatial_unwrapping import SpatialUnwrapping
from .nufft import NonCartesianMRI

from . import generator
from . import functional
