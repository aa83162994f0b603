from refiners.foundationals.clip.text_encoder import (
    CLIPTextEncoderL,
)
from refiners.foundationals.latent_diffusion.auto_encoder import (
    LatentDiffusionAutoencoder,
)
from refiners.foundationals.latent_diffusion.freeu import SDFreeUAdapter
from refiners.foundationals.latent_diffusion.solvers import DPMSolver, LCMSolver, Solver
from refiners.foundationals.latent_diffusion.stable_diffusion_1 import (
    SD1ControlnetAdapter,
    SD1IPAdapter,
    SD1T2IAdapter,
    SD1UNet,
    StableDiffusion_1,
    StableDiffusion_1_Inpainting,
)
from refiners.foundationals.latent_diffusion.stable_diffusion_xl import (
    ControlLoraAdapter,
    DoubleTextEncoder,
    SDXLIPAdapter,
    SDXLLcmAdapter,
    SDXLT2IAdapter,
    SDXLUNet,
    StableDiffusion_XL,
)
from refiners.foundationals.latent_diffusion.style_aligned import StyleAlignedAdapter

__all__ = [
    "StableDiffusion_1",
    "StableDiffusion_1_Inpainting",
    "SD1UNet",
    "SD1ControlnetAdapter",
    "SD1IPAdapter",
    "SD1T2IAdapter",
    "SDXLUNet",
    "DoubleTextEncoder",
    "SDXLIPAdapter",
    "SDXLLcmAdapter",
    "SDXLT2IAdapter",
    "DPMSolver",
    "LCMSolver",
    "Solver",
    "CLIPTextEncoderL",
    "LatentDiffusionAutoencoder",
    "SDFreeUAdapter",
    "StableDiffusion_XL",
    "StyleAlignedAdapter",
    "ControlLoraAdapter",
]
