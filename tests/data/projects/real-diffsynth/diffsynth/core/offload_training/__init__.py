from .manager import OffloadTrainingManager
