'''This module contains the benchmark models for dattri.'''

SUPPORTED_MODELS = [
    "lr",
    "mlp",
    "resnet9",
    "resnet18",
    "musictransformer",
    "nanogpt"
]
