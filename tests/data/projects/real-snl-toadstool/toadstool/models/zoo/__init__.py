"""Example generic models."""

from toadstool.models.zoo.MLPMixer import MlpMixer
from toadstool.models.zoo.RNN_classifier import RNN_classifier
from toadstool.models.zoo.SequenceConv import SequenceConv
from toadstool.models.zoo.Transformer import TransformerModel

__all__ = [
    'MlpMixer',
    'RNN_classifier',
    'SequenceConv',
    'TransformerModel',
]
