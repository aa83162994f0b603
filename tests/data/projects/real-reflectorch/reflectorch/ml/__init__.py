from reflectorch.ml.basic_trainer import *
from reflectorch.ml.callbacks import *
from reflectorch.ml.trainers import *
from reflectorch.ml.loggers import *
from reflectorch.ml.schedulers import *
from reflectorch.ml.dataloaders import *

__all__ = [
    'Trainer',
    'TrainerCallback',
    'DataLoader',
    'PeriodicTrainerCallback',
    'SaveBestModel',
    'LogLosses',
    'Logger',
    'Loggers',
    'PrintLogger',
    'TensorBoardLogger',
    'ScheduleBatchSize',
    'ScheduleLR',
    'StepLR',
    'CyclicLR',
    'LogCyclicLR',
    'ReduceLROnPlateau',
    'OneCycleLR',
    'CosineAnnealingWithWarmup',
    'ReflectivityDataLoader',
    'MultilayerDataLoader',
    'RealTimeSimTrainer',
    'DenoisingAETrainer',
    'PointEstimatorTrainer',
]
