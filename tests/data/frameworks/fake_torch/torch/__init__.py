"""A stand-in for an installed torch build, for envsnap's framework-probe tests.

The build it pretends to be is read from the JSON file named by ``FAKE_TORCH_BUILD`` (see
``../../builds/``, whose values come from compat-rules.md and real reports). The module layout and the
function bodies mirror torch 2.13's own (``torch/cuda/__init__.py``, ``torch/cuda/nccl.py``), so the
probe goes through the same calls it makes on a real build. Shared libraries listed under ``load``
(relative to the folder holding this package, or absolute) are opened with ctypes at import, as
libtorch_cuda's DT_NEEDED entries would be, so they show up in ``/proc/self/maps``.
"""

import ctypes
import json
import os

with open(os.environ["FAKE_TORCH_BUILD"], encoding="utf-8") as _build:
    BUILD = json.load(_build)

from torch import _C, __config__, backends, cuda, version, xpu
from torch.version import __version__

_site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _library in BUILD.get("load", []):
    _path = os.path.join(_site, _library)
    if os.path.exists(_path):
        ctypes.CDLL(_path)

__all__ = ["BUILD", "_C", "__config__", "__version__", "backends", "cuda", "version", "xpu"]
