import torch.nn as nn

SUPPORTED_ACTIVATIONS = (
    nn.ReLU,
    nn.Sigmoid,
)
