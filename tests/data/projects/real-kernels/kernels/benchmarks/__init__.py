from .activation import SiluAndMulBenchmark
from .attention import (
    FlashAttentionBenchmark,
    FlashAttentionCausalBenchmark,
    FlashAttentionVarlenBenchmark,
)
from .layer_norm import LayerNormBenchmark, RMSNormBenchmark

__all__ = [
    "FlashAttentionBenchmark",
    "FlashAttentionCausalBenchmark",
    "FlashAttentionVarlenBenchmark",
    "LayerNormBenchmark",
    "RMSNormBenchmark",
    "SiluAndMulBenchmark",
]
