#  Copyright (c) Prior Labs GmbH 2026.

from .adaptive_quantile_transformer import (
    AdaptiveQuantileTransformer,
)
from .add_fingerprint_features_step import (
    AddFingerprintFeaturesStep,
)
from .add_svd_features_step import (
    AddSVDFeaturesStep,
)
from .differentiable_z_norm_step import (
    DifferentiableZNormStep,
)
from .encode_categorical_features_step import (
    EncodeCategoricalFeaturesStep,
)
from .kdi_transformer import (
    KDITransformerWithNaN,
    get_all_kdi_transformers,
)
from .nan_handling_polynomial_features_step import (
    NanHandlingPolynomialFeaturesStep,
)
from .remove_constant_features_step import (
    RemoveConstantFeaturesStep,
)
from .reshape_feature_distribution_step import (
    ReshapeFeatureDistributionsStep,
    get_all_reshape_feature_distribution_preprocessors,
)
from .safe_power_transformer import SafePowerTransformer
from .shuffle_features_step import ShuffleFeaturesStep
from .squashing_scaler_transformer import SquashingScaler

__all__ = [
    "AdaptiveQuantileTransformer",
    "AddFingerprintFeaturesStep",
    "AddSVDFeaturesStep",
    "DifferentiableZNormStep",
    "EncodeCategoricalFeaturesStep",
    "KDITransformerWithNaN",
    "NanHandlingPolynomialFeaturesStep",
    "RemoveConstantFeaturesStep",
    "ReshapeFeatureDistributionsStep",
    "SafePowerTransformer",
    "ShuffleFeaturesStep",
    "SquashingScaler",
    "get_all_kdi_transformers",
    "get_all_reshape_feature_distribution_preprocessors",
]
