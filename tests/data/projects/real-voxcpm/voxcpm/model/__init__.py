from .voxcpm import VoxCPMModel
from .voxcpm2 import VoxCPM2Model

__all__ = ["VoxCPMModel", "VoxCPM2Model"]
