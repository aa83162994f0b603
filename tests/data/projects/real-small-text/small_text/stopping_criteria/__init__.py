from small_text.stopping_criteria.base import (
    check_window_based_predictions,
    DeltaFScore,
    StoppingCriterion
)
from small_text.stopping_criteria.change import ClassificationChange
from small_text.stopping_criteria.kappa import KappaAverage
from small_text.stopping_criteria.uncertainty import OverallUncertainty
from small_text.stopping_criteria.utility import MaxIterations


__all__ = [
    'ClassificationChange',
    'DeltaFScore',
    'StoppingCriterion',
    'check_window_based_predictions',
    'KappaAverage',
    'OverallUncertainty',
    'MaxIterations'
]
