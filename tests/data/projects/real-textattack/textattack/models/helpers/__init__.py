"""
Moderl Helpers
------------------
"""

# Helper stuff, like embeddings.
from . import utils
from .glove_embedding_layer import GloveEmbeddingLayer

# Helper modules.
from .lstm_for_classification import LSTMForClassification
from .t5_for_text_to_text import T5ForTextToText
from .word_cnn_for_classification import WordCNNForClassification
