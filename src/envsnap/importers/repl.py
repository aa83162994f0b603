"""What a pasted Python session says about torch: ``torch.__version__`` and ``torch.version.cuda``.

Issue threads are full of ``>>> torch.__version__`` / ``'2.0.1+cpu'`` and ``print(torch.version.cuda)``
/ ``None``. The answer is on the line after the expression (after an ``Out[n]:`` in IPython). Only a
build these lines pin down is returned: a version whose wheel tag or printed CUDA says CUDA, ROCm or
CPU; a bare ``2.0.1`` says nothing about the build and yields nothing.
"""

from __future__ import annotations

import re

from envsnap.importers.base import ImportedSections
from envsnap.importers.package_lists import torch_of_wheel
from envsnap.snapshot.model import Frameworks, TorchInfo

_ANSWER = r"\)?[ \t]*\r?\n[ \t]*(?:Out\[\d+\]:[ \t]*)?['\"]?"
_VERSION = re.compile(
    r"torch\.__version__" + _ANSWER + r"(?P<version>\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)*(?:\+[\w.]+)?)['\"]?"
)
_CUDA = re.compile(r"torch\.version\.cuda" + _ANSWER + r"(?P<cuda>\d+\.\d+|None)['\"]?")


def parse(text: str) -> ImportedSections | None:
    """The torch build a pasted session shows, or None."""
    version = _VERSION.search(text)
    cuda = _CUDA.search(text)
    if version is None:
        return None
    info = torch_of_wheel(version.group("version"))
    if cuda is not None:
        printed = cuda.group("cuda")
        info = TorchInfo(
            status="ok",
            version=version.group("version"),
            cuda=None if printed == "None" else printed,
            hip=info.hip if info is not None else None,
        )
    return ImportedSections(frameworks=Frameworks(torch=info)) if info is not None else None
