from .lora import LoraModel, LoraConfig
from .bitfit import BitFitModel
