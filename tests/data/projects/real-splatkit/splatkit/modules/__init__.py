from .base import SplatBaseModule
from .composite import SplatModuleComposite
from .frame import SplatRenderPayload, SplatRenderPayloadT

from .evaluator import SplatEvaluator
from .exporter import SplatExporter
from .progress_tracker import SplatProgressTracker
from .tensorboard import SplatTensorboard
from .viewer import SplatViewer, SplatViewerTabState

__all__ = [
    "SplatBaseModule",
    "SplatRenderPayload",
    "SplatRenderPayloadT",
    "SplatModuleComposite",
    
    "SplatEvaluator",
    "SplatExporter",
    "SplatProgressTracker",
    "SplatTensorboard",
    "SplatViewer",
    "SplatViewerTabState",
]