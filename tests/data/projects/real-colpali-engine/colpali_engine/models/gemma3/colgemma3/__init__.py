from .modeling_colgemma import ColGemma3
from .processing_colgemma import ColGemmaProcessor3

__all__ = ["ColGemma3", "ColGemmaProcessor3"]
