from .predictor import NcutPredictor
from .vision_predictor import NcutVisionPredictor

from .dino_predictor import (
    NcutDinov3Predictor,
    NcutDinoPredictor,
    NcutDinoPredictorFeatUp,
    NcutDinoPredictorSR,
)