"""

Metrics on Quality package
---------------------------------------------------------------------

TextAttack provide users common metrics on text examples' quality.


"""

from .perplexity import Perplexity
from .use import USEMetric
from .sentence_bert import SBERTMetric
from .bert_score import BERTScoreMetric
from .meteor_score import MeteorMetric
