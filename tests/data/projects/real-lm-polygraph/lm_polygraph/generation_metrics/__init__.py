from .rouge import RougeMetric
from .bleu import BLEUMetric
from .model_score import ModelScoreSeqMetric, ModelScoreTokenwiseMetric
from .bart_score import BartScoreSeqMetric
from .accuracy import AccuracyMetric

try:
    from .comet import Comet
except ImportError:
    Comet = None

from .alignscore import AlignScore
from .openai_fact_check import OpenAIFactCheck
from .bert_score import BertScoreMetric
from .sbert import SbertMetric
from .aggregated_metric import AggregatedMetric
from .preprocess_output_target import PreprocessOutputTarget
