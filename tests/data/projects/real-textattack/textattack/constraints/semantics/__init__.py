""".. _semantics:

Semantic Constraints
---------------------
Semantic constraints determine if a transformation is valid based on similarity of the semantics of the orignal input and the transformed input.
"""

from . import sentence_encoders

from .word_embedding_distance import WordEmbeddingDistance
from .bert_score import BERTScore
