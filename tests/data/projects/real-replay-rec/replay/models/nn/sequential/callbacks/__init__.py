from .prediction_callbacks import (
    BasePredictionCallback,
    PandasPredictionCallback,
    PolarsPredictionCallback,
    QueryEmbeddingsPredictionCallback,
    SparkPredictionCallback,
    TorchPredictionCallback,
)
from .validation_callback import ValidationMetricsCallback
