# ==================================
# Copyright: CEA-LIST/DIASI/SIALV/
# Author : Torchaug Developers
# License: CECILL-C
# ==================================

# ruff: noqa: D104
# ruff: noqa: F401

from ._dataset_wrapper import wrap_dataset_for_transforms_v2
