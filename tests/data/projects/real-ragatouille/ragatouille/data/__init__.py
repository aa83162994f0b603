from .corpus_processor import CorpusProcessor
from .preprocessors import llama_index_sentence_splitter
from .training_data_processor import TrainingDataProcessor

__all__ = [
    "TrainingDataProcessor",
    "CorpusProcessor",
    "llama_index_sentence_splitter",
]
