from .modeling_bigemma import BiGemma3
from .processing_bigemma import BiGemmaProcessor3
