"""Provides an internal interface for working with text features."""


__all__ = [
    "tokenizer",
    "dl_transformers",
    "sentence_pooling",
    "weighted_average_transformer",
    "embed_dataset",
]
