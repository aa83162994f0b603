from . import classifier, encoder
from .classifier import NodeClassifier
from .encoder import GNNEncoder

doc = """
High-level model architectures (encoders, classifiers).
"""
