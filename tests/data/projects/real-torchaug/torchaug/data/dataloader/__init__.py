# ==================================
# Copyright: CEA-LIST/DIASI/SIALV/
# Author : Torchaug Developers
# License: CECILL-C
# ==================================

# ruff: noqa: D104
# ruff: noqa: F401

from ._collate import default_collate, default_collate_fn_map, default_nested_collate
