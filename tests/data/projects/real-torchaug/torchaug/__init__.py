# ==================================
# Copyright: CEA-LIST/DIASI/SIALV/
# Author : Torchaug Developers
# License: CECILL-C
# ==================================

# ruff: noqa: F401
# ruff: noqa: D104

from torchaug import data, ta_tensors, transforms


__version__ = "0.6.1"
