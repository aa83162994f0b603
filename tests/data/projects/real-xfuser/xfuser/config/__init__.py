from .args import FlexibleArgumentParser, xFuserArgs
from .gemm import GemmQuantizationSpec
from .config import (
    EngineConfig,
    ParallelConfig,
    TensorParallelConfig,
    PipeFusionParallelConfig,
    SequenceParallelConfig,
    DataParallelConfig,
    ModelConfig,
    InputConfig,
    RuntimeConfig
)

__all__ = [
    "FlexibleArgumentParser",
    "xFuserArgs",
    "GemmQuantizationSpec",
    "EngineConfig",
    "ParallelConfig",
    "TensorParallelConfig",
    "PipeFusionParallelConfig",
    "SequenceParallelConfig",
    "DataParallelConfig",
    "ModelConfig",
    "InputConfig",
    "RuntimeConfig"
]