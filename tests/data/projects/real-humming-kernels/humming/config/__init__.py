from humming.config.config import (
    ComputeConfig,
    LayerConfig,
    ProcessInputProblemConfig,
    ProcessInputTuningConfig,
    TuningConfig,
)
from humming.config.enum import (
    ActivationType,
    GemmType,
    InputQuantizationMode,
    MmaType,
    ProcessInputLayoutType,
    ProcessInputQuantizationPhase,
    SmemReuseMode,
    WeightScale2Type,
    WeightScaleType,
)
from humming.config.mma import MmaOpClass

__all__ = [
    "ProcessInputProblemConfig",
    "ProcessInputTuningConfig",
    "ProcessInputLayoutType",
    "ProcessInputQuantizationPhase",
    "ActivationType",
    "LayerConfig",
    "ComputeConfig",
    "TuningConfig",
    "MmaType",
    "SmemReuseMode",
    "InputQuantizationMode",
    "WeightScaleType",
    "WeightScale2Type",
    "GemmType",
    "MmaOpClass",
]
