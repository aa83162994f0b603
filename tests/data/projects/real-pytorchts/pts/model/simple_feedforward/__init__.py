from .simple_feedforward_estimator import SimpleFeedForwardEstimator
from .simple_feedforward_network import (
    SimpleFeedForwardTrainingNetwork,
    SimpleFeedForwardPredictionNetwork,
)
