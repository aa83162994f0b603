"""torch.xpu: not available unless the build says so."""

import torch


def is_available():
    return bool(torch.BUILD.get("xpu"))
