import ignite.metrics.regression
from ignite.metrics import average_precision, cohen_kappa, gpu_info, precision_recall_curve, roc_auc
from ignite.metrics.average_precision import AveragePrecision
from ignite.metrics.cohen_kappa import CohenKappa
from ignite.metrics.gpu_info import GpuInfo
from ignite.metrics.precision_recall_curve import PrecisionRecallCurve
from ignite.metrics.roc_auc import ROC_AUC, RocCurve
