#  Copyright (c) Prior Labs GmbH 2026.

from __future__ import annotations

from .clean import clean_data
from .configs import (
    ClassifierEnsembleConfig,
    EnsembleConfig,
    FeatureSubsamplingMethod,
    PreprocessorConfig,
    RegressorEnsembleConfig,
    SampleSubsamplingMethod,
)
from .ensemble import (
    generate_classification_ensemble_configs,
    generate_regression_ensemble_configs,
)
from .pipeline_interface import PreprocessingPipeline
from .presets import (
    v2_5_classifier_preprocessor_configs,
    v2_5_regressor_preprocessor_configs,
    v2_classifier_preprocessor_configs,
    v2_regressor_preprocessor_configs,
)
from .transform import fit_preprocessing

__all__ = [
    "ClassifierEnsembleConfig",
    "EnsembleConfig",
    "FeatureSubsamplingMethod",
    "PreprocessingPipeline",
    "PreprocessorConfig",
    "RegressorEnsembleConfig",
    "SampleSubsamplingMethod",
    "clean_data",
    "fit_preprocessing",
    "generate_classification_ensemble_configs",
    "generate_regression_ensemble_configs",
    "v2_5_classifier_preprocessor_configs",
    "v2_5_regressor_preprocessor_configs",
    "v2_classifier_preprocessor_configs",
    "v2_regressor_preprocessor_configs",
]
