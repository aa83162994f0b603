"""exacta: fast, reference-validated losses and metrics for deep learning."""

from exacta import components, functional, lesions, losses, metrics
from exacta import detection

__version__ = "0.0.1a5"

__all__ = ["components", "functional", "lesions", "losses", "metrics", "detection", "__version__"]
