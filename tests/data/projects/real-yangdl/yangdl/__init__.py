from yangdl.core import (
    ModelModule,
    DataModule,
    TaskModule,
    logger,
    env,
)
from yangdl.metric import (
    Metric,
    ValueMetric,
    ClsMetric,
    SegMetric,
    RegMetric,
)
from yangdl import utils


__all__ = [
    'ModelModule',
    'DataModule',
    'TaskModule',
    'logger',
    'env',
    'Metric',
    'ValueMetric',
    'ClsMetric',
    'SegMetric',
    'RegMetric',
    'utils',
]
