from AK_SSL.vision.Trainer import Trainer

__all__ = ["Trainer"]