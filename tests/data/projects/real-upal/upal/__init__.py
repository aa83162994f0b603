"""UPAL point-and-line feature extraction."""

from .model import UPAL, load_model
from .postprocess import detect_lines, match_lines_from_endpoints, mutual_nearest_neighbors

__version__ = "0.1.0"

__all__ = [
    "UPAL",
    "load_model",
    "detect_lines",
    "match_lines_from_endpoints",
    "mutual_nearest_neighbors",
    "__version__",
]
