from AK_SSL.vision.models.modules.heads import *

__all__ = [
    "SimCLRProjectionHead",
    "BarlowTwinsProjectionHead",
    "BYOLProjectionHead",
    "BYOLPredictionHead",
    "SimSiamProjectionHead",
    "SimSiamPredictionHead",
    "SwAVProjectionHead",
    "DINOProjectionHead",
]
