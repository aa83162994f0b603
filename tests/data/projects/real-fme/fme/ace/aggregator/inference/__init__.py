from ..one_step.ensemble import EnsembleMetricConfig
from ..one_step.reduced import StepMeanMetricConfig
from .annual import AnnualMetricConfig
from .enso.dynamic_index import EnsoIndexMetricConfig
from .enso.enso_coefficient import EnsoCoefficientMetricConfig
from .histogram import HistogramMetricConfig
from .ipo.ipo_index import IpoIndexMetricConfig
from .main import (
    InferenceAggregator,
    InferenceAggregatorConfig,
    InferenceEvaluatorAggregator,
    InferenceEvaluatorAggregatorConfig,
    LegacyFlagInferenceEvaluatorAggregatorConfig,
    MetricConfig,
    StepMeanEntry,
    build_inference_evaluator_aggregator,
)
from .reduced import MeanMetricConfig
from .seasonal import SeasonalMetricConfig
from .spectrum import PowerSpectrumMetricConfig
from .time_mean import TimeMeanMetricConfig
from .trend import TrendMetricConfig
from .video import VideoMetricConfig
from .zonal_mean import ZonalMeanMetricConfig
