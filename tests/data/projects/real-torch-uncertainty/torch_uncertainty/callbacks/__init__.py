# ruff: noqa: F401
from .checkpoint import TUClsCheckpoint, TURegCheckpoint, TUSegCheckpoint
from .compound_checkpoint import CompoundCheckpoint
