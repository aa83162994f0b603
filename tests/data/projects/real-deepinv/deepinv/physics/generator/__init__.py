from .base import PhysicsGenerator, GeneratorMixture
from .blur import (
    GaussianBlurGenerator,
    MotionBlurGenerator,
    DiffractionBlurGenerator,
    PSFGenerator,
    ProductConvolutionBlurGenerator,
    DiffractionBlurGenerator3D,
    ConfocalBlurGenerator3D,
    bump_function,
    TiledBlurGenerator,
)
from .mri import (
    BaseMaskGenerator,
    GaussianMaskGenerator,
    RandomMaskGenerator,
    EquispacedMaskGenerator,
    PolyOrderMaskGenerator,
)
from .noise import SigmaGenerator, GainGenerator
from .inpainting import (
    BernoulliSplittingMaskGenerator,
    GaussianSplittingMaskGenerator,
    Artifact2ArtifactSplittingMaskGenerator,
    Phase2PhaseSplittingMaskGenerator,
    MultiplicativeSplittingMaskGenerator,
)
from .downsampling import DownsamplingGenerator
from .zernike import Zernike
