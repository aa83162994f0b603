from imaginairy.vendored.refiners.foundationals.clip.text_encoder import (
    CLIPTextEncoderL,
)
from imaginairy.vendored.refiners.foundationals.latent_diffusion.auto_encoder import (
    LatentDiffusionAutoencoder,
)
from imaginairy.vendored.refiners.foundationals.latent_diffusion.freeu import SDFreeUAdapter
from imaginairy.vendored.refiners.foundationals.latent_diffusion.schedulers import DPMSolver, Scheduler
from imaginairy.vendored.refiners.foundationals.latent_diffusion.stable_diffusion_1 import (
    SD1ControlnetAdapter,
    SD1IPAdapter,
    SD1T2IAdapter,
    SD1UNet,
    StableDiffusion_1,
    StableDiffusion_1_Inpainting,
)
from imaginairy.vendored.refiners.foundationals.latent_diffusion.stable_diffusion_xl import (
    DoubleTextEncoder,
    SDXLIPAdapter,
    SDXLT2IAdapter,
    SDXLUNet,
)

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
    "SDXLT2IAdapter",
    "DPMSolver",
    "Scheduler",
    "CLIPTextEncoderL",
    "LatentDiffusionAutoencoder",
    "SDFreeUAdapter",
]
