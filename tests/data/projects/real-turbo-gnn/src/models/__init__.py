from .architecture import GNNEncoder, NodeClassifier, classifier, encoder

doc = """
Models package: registries, base utilities, layers, and high-level architectures.
Importing this module ensures common architectures are registered.
"""
