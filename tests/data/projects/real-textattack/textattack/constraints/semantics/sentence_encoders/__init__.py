"""
Sentence Encoder Constraint
----------------------------
"""

from .sentence_encoder import SentenceEncoder

from .sentence_bert import SBERT
from .infer_sent import InferSent
from .thought_vector import ThoughtVector
from .universal_sentence_encoder import (
    UniversalSentenceEncoder,
    MultilingualUniversalSentenceEncoder,
)
