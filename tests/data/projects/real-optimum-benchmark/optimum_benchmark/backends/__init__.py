from .config import BackendConfig
from .ipex.config import IPEXConfig
from .llama_cpp.config import LlamaCppConfig
from .onnxruntime.config import ORTConfig
from .openvino.config import OVConfig
from .py_txi.config import PyTXIConfig
from .pytorch.config import PyTorchConfig
from .tensorrt_llm.config import TRTLLMConfig
from .vllm.config import VLLMConfig

__all__ = [
    "PyTorchConfig",
    "ORTConfig",
    "IPEXConfig",
    "OVConfig",
    "TRTLLMConfig",
    "PyTXIConfig",
    "BackendConfig",
    "VLLMConfig",
    "LlamaCppConfig",
]
