"""Model I/O utilities."""

from .bmz_io import export_to_bmz
from .model_io_utils import load_pretrained

__all__ = [
    "export_to_bmz",
    "load_pretrained",
]
