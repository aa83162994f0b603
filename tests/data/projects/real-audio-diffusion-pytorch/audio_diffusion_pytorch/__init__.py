from .components import LTPlugin, MelSpectrogram, UNetV0, XUNet
from .diffusion import (
    Diffusion,
    Distribution,
    LinearSchedule,
    Sampler,
    Schedule,
    UniformDistribution,
    VDiffusion,
    VInpainter,
    VSampler,
)
from .models import (
    DiffusionAE,
    DiffusionAR,
    DiffusionModel,
    DiffusionUpsampler,
    DiffusionVocoder,
    EncoderBase,
)
