"""torch.__config__.show()."""

import torch


def show():
    return torch.BUILD["config"]
