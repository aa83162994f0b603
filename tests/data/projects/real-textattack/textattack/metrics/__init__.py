""".. _metrics:

metrics package: to calculate advanced metrics for evaluting attacks and augmented text
========================================================================================
"""

from .metric import Metric

from .attack_metrics import AttackSuccessRate
from .attack_metrics import WordsPerturbed
from .attack_metrics import AttackQueries

from .quality_metrics import Perplexity
from .quality_metrics import USEMetric
from .quality_metrics import SBERTMetric
from .quality_metrics import BERTScoreMetric
from .quality_metrics import MeteorMetric
