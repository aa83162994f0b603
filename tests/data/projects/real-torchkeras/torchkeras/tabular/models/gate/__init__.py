from .config import GatedAdditiveTreeEnsembleConfig
from .gate_model import GatedAdditiveTreeEnsembleModel, GatedAdditiveTreesBackbone

__all__ = [
    "GatedAdditiveTreesBackbone",
    "GatedAdditiveTreeEnsembleModel",
    "GatedAdditiveTreeEnsembleConfig",
]
