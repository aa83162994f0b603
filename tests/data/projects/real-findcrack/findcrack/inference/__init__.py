from .pipeline import CrackInferencePipeline
from .tta import tta_forward

__all__ = ["CrackInferencePipeline", "tta_forward"]
