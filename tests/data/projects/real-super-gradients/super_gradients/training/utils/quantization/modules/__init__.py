from .quantized_stdc_blocks import QuantSTDCBlock, QuantAttentionRefinementModule, QuantFeatureFusionModule, QuantContextPath
from .resnet_bottleneck import QuantBottleneck
from .quantized_skip_connections import (
    QuantHeadInternalSkipConnection,
    QuantCrossModelSkipConnection,
    QuantBackboneInternalSkipConnection,
    QuantSkipConnection,
    QuantResidual,
)

__all__ = [
    "QuantSTDCBlock",
    "QuantAttentionRefinementModule",
    "QuantFeatureFusionModule",
    "QuantContextPath",
    "QuantBottleneck",
    "QuantSkipConnection",
    "QuantHeadInternalSkipConnection",
    "QuantResidual",
    "QuantCrossModelSkipConnection",
    "QuantBackboneInternalSkipConnection",
]
