"""
Single-cell Gene Regulatory Networks Inference and Analytics
"""
from . import data
from . import models
from . import plot

from .logger import LightLogger, load_logger
from .trainer import RegDiffusionTrainer, set_seed
from .grn import GRN, read_hdf5
from .evaluator import GRNEvaluator

__all__ = ['data', 'models', 'plot', 'LightLogger', 'load_logger',
           'RegDiffusionTrainer', 'set_seed', 'GRN', 'read_hdf5', 'GRNEvaluator']

