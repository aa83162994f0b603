from .fc import FC as FullyConnectedClassifier
from .rnn import RNNClassifier
from .bert_hf import BERT

__all__ = ["FullyConnectedClassifier", "RNNClassifier", "BERT"]
