from torchreid.reid import data, engine, losses, metrics, models, optim, utils
from torchreid import reid_model_factory

__version__ = '0.2.5'