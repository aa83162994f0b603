"""sub-package that parses config.toml files and returns config object"""

from . import (
    config,
    dataset,
    eval,
    learncurve,
    load,
    model,
    predict,
    prep,
    spect_params,
    train,
    trainer,
    validators,
)
from .config import Config
from .dataset import DatasetConfig
from .eval import EvalConfig
from .learncurve import LearncurveConfig
from .model import ModelConfig
from .predict import PredictConfig
from .prep import PrepConfig
from .spect_params import SpectParamsConfig
from .train import TrainConfig
from .trainer import TrainerConfig

__all__ = [
    "config",
    "dataset",
    "eval",
    "learncurve",
    "model",
    "load",
    "predict",
    "prep",
    "spect_params",
    "train",
    "trainer",
    "validators",
    "Config",
    "DatasetConfig",
    "EvalConfig",
    "LearncurveConfig",
    "ModelConfig",
    "PredictConfig",
    "PrepConfig",
    "SpectParamsConfig",
    "TrainConfig",
    "TrainerConfig",
]
