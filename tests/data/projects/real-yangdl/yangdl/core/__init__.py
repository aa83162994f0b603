from yangdl.core.model_module import ModelModule
from yangdl.core.data_module import DataModule
from yangdl.core.task_module import TaskModule
from yangdl.core.logger import logger
from yangdl.core.env import env


__all__ = [
    'ModelModule',
    'DataModule',
    'TaskModule',
    'logger',
    'env',
]
