from refiners.fluxion.adapters.adapter import Adapter
from refiners.fluxion.adapters.lora import Conv2dLora, LinearLora, Lora, LoraAdapter, auto_attach_loras

__all__ = [
    "Adapter",
    "Lora",
    "LinearLora",
    "Conv2dLora",
    "LoraAdapter",
    "auto_attach_loras",
]
