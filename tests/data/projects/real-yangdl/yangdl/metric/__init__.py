from yangdl.metric.metric import Metric
from yangdl.metric.value import ValueMetric
from yangdl.metric.cls import ClsMetric
from yangdl.metric.seg import SegMetric
from yangdl.metric.reg import RegMetric


__all__ = [
    'Metric',
    'ValueMetric',
    'ClsMetric',
    'SegMetric',
    'RegMetric',
]
