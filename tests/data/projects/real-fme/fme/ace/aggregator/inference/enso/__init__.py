from .dynamic_index import PairedRegionalIndexAggregator, RegionalIndexAggregator
from .enso_coefficient import (
    EnsoCoefficientEvaluatorAggregator,
    EnsoCoefficientMetricConfig,
)
