from .annotator import SAMAnnotator
from .weight_manager import SAMWeightManager
from .predictor import SAM1Predictor, SAM2Predictor, SAM3Predictor
from .model_registry import MODEL_REGISTRY

__all__ = [
    'SAMAnnotator',
    'SAMWeightManager',
    'SAM1Predictor',
    'SAM2Predictor',
    'SAM3Predictor',
    'MODEL_REGISTRY',
]