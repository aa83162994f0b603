from small_text.training.early_stopping import (
    EarlyStoppingHandler,
    NoopEarlyStopping,
    EarlyStopping,
    EarlyStoppingOrCondition,
    EarlyStoppingAndCondition
)
from small_text.training.metrics import Metric
from small_text.training.model_selection import (
    ModelSelectionResult,
    ModelSelectionManager,
    NoopModelSelection,
    ModelSelection
)


__all__ = [
    'EarlyStoppingHandler',
    'NoopEarlyStopping',
    'EarlyStopping',
    'EarlyStoppingOrCondition',
    'EarlyStoppingAndCondition',
    'Metric',
    'ModelSelectionResult',
    'ModelSelectionManager',
    'NoopModelSelection',
    'ModelSelection'
]
