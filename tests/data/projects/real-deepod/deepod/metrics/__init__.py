from deepod.metrics._anomaly_detection import auc_roc
from deepod.metrics._anomaly_detection import auc_pr
from deepod.metrics._anomaly_detection import tabular_metrics
from deepod.metrics._anomaly_detection import ts_metrics
from deepod.metrics._tsad_adjustment import point_adjustment


__all__ = [
    'auc_pr',
    'auc_roc',
    'tabular_metrics',
    'ts_metrics',
    'point_adjustment'
]