from oxrl.trainer import Trainer

__version__ = "1.3.8"
__all__ = ["Trainer"]
