from .quantizer import QuantizationMethod, SDNQConfig, SDNQQuantizer, apply_sdnq_to_module, sdnq_post_load_quant, sdnq_quantize_layer
from .loader import save_sdnq_model, load_sdnq_model
from .common import sdnq_version

__version__ = sdnq_version

__all__ = [
    "QuantizationMethod",
    "SDNQConfig",
    "SDNQQuantizer",
    "apply_sdnq_to_module",
    "load_sdnq_model",
    "save_sdnq_model",
    "sdnq_post_load_quant",
    "sdnq_quantize_layer",
]


# dummy class so hijacking won't break
class SDNext:
    pass
sdnext = SDNext()
