from .svdquant import (
    QUANT_MODE_TO_SCHEME,
    ErrorCorrectedModule,
    HessianCollector,
    LowRankCorrectionModule,
    SVDQuantProcessor,
    build_quant_layer_config,
    gptq_quantize_residual,
)

__all__ = [
    "SVDQuantProcessor",
    "ErrorCorrectedModule",
    "LowRankCorrectionModule",
    "HessianCollector",
    "QUANT_MODE_TO_SCHEME",
    "build_quant_layer_config",
    "gptq_quantize_residual",
]
