# PACKAGE IMPORTS FOR EXTERNAL USAGE

from super_gradients.training.sg_trainer.sg_trainer import Trainer, MultiGPUMode, StrictLoad

__all__ = ["Trainer", "MultiGPUMode", "StrictLoad"]
