from mflux.config.config import Config, ConfigControlnet
from mflux.config.model_config import ModelConfig
from mflux.controlnet.flux_controlnet import Flux1Controlnet
from mflux.error.exceptions import StopImageGenerationException
from mflux.flux.flux import Flux1
from mflux.post_processing.image_util import ImageUtil

__all__ = [
    "Flux1",
    "Flux1Controlnet",
    "Config",
    "ConfigControlnet",
    "ModelConfig",
    "ImageUtil",
    "StopImageGenerationException",
]
