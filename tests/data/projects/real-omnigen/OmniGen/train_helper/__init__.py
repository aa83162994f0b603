from .data import DatasetFromJson, TrainDataCollator
from .loss import training_losses