from .bidirectional_mistral import MistralBiModel, MistralBiForMNTP
from .bidirectional_llama import LlamaBiModel, LlamaBiForMNTP
from .bidirectional_gemma import GemmaBiModel, GemmaBiForMNTP
from .bidirectional_qwen2 import Qwen2BiModel, Qwen2BiForMNTP
