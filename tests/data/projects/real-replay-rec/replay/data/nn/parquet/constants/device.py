import torch

DEFAULT_DEVICE = torch.device("cpu")
