from . import models
from . import utils 
from .utils import available_models
from .tabular_preprocess import TabularPreprocessor
from .tabular_dataset import TabularDataset
from .step_runner import StepRunner

__all__ = [
    "models",
    "utils",
    "available_models",
    "TabularPreprocessor",
    "TabularDataset",
    "StepRunner"
]

