from bindsnet.conversion.conversion import (
    ConstantPad2dConnection,
    FeatureExtractor,
    PassThroughNodes,
    Permute,
    PermuteConnection,
    SubtractiveResetIFNodes,
    ann_to_snn,
    data_based_normalization,
)

__all__ = [
    "Permute",
    "FeatureExtractor",
    "SubtractiveResetIFNodes",
    "PassThroughNodes",
    "PermuteConnection",
    "ConstantPad2dConnection",
    "data_based_normalization",
    "ann_to_snn",
]
