from .dice_trainer import DICE_Trainer # noqa
