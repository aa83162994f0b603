# klarity/__init__.py
from .estimator import UncertaintyEstimator
from .models import (
    TokenInfo,
    UncertaintyMetrics,
    UncertaintyAnalysisRequest,
    UncertaintyAnalysisResult,
)
from transformers import LogitsProcessorList

__all__ = [
    'UncertaintyEstimator',
    'TokenInfo',
    'UncertaintyMetrics',
    'UncertaintyAnalysisRequest',
    'LogitsProcessorList',
    'UncertaintyAnalysisResult',

]

__version__ = "0.1.0"