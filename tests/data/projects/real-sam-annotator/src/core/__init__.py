from .annotator import SAMAnnotator
from .weight_manager import SAMWeightManager
from .predictor import SAM1Predictor, SAM2Predictor

__all__ = ['SAMAnnotator', 'SAMWeightManager', 'SAMPredictor', 'SAM2Predictor']