import os

os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

__version__ = "0.4.4"

from .interface import Interface
from .models.info import Backend, InterfaceVersion, Models, LlamaCppQuantization, GenerationType
from .models.config import ModelConfig, GenerationConfig, SamplerConfig
