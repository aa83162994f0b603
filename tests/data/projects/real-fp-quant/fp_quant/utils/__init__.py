from .config import FPQuantConfig, FPQuantDtype, validate_config
from .replace import (
    replace_with_fp_quant_linear,
    replace_quantize_with_fp_quant_linear,
    finalize_master_weights,
)
