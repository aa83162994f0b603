# PACKAGE IMPORTS FOR EXTERNAL USAGE
import super_gradients.training.utils.distributed_training_utils as distributed_training_utils
from super_gradients.common import MultiGPUMode, StrictLoad, EvaluationType
from super_gradients.training.datasets import datasets_utils, DataAugmentation
from super_gradients.training.pre_launch_callbacks import modify_params_for_qat
from super_gradients.training.qat_trainer import QATTrainer
from super_gradients.training.sg_trainer import Trainer
from super_gradients.training.kd_trainer import KDTrainer

__all__ = [
    "distributed_training_utils",
    "datasets_utils",
    "DataAugmentation",
    "Trainer",
    "KDTrainer",
    "QATTrainer",
    "MultiGPUMode",
    "StrictLoad",
    "EvaluationType",
    "modify_params_for_qat",
]
