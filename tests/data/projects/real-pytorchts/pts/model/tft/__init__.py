from .tft_estimator import TemporalFusionTransformerEstimator
from .tft_network import (
    TemporalFusionTransformerTrainingNetwork,
    TemporalFusionTransformerPredictionNetwork,
)
