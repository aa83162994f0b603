__version__ = "1.1.0"

from .FrameSemanticTransformer import (
    FrameSemanticTransformer,
    DetectFramesResult,
    FrameElementResult,
    FrameResult,
)
from .data.loaders.loader import InferenceLoader, TrainingLoader
from .data.frame_types import (
    FrameAnnotatedSentence,
    FrameAnnotation,
    FrameElementAnnotation,
    Frame,
)

__all__ = (
    "FrameSemanticTransformer",
    "DetectFramesResult",
    "FrameElementResult",
    "FrameResult",
    "InferenceLoader",
    "TrainingLoader",
    "FrameAnnotatedSentence",
    "FrameAnnotation",
    "FrameElementAnnotation",
    "Frame",
)
