"""torch.backends.cudnn.version(): the library's integer (cuDNN on CUDA, MIOpen on ROCm) or None."""

import torch


def version():
    return torch.BUILD.get("cudnn")
