# ruff: noqa: F401
from .mean_iou import MeanIntersectionOverUnion
from .patch_accuracy_vs_uncertainty import PAvPU
from .seg_binary_auroc import SegmentationBinaryAUROC
from .seg_binary_average_precision import SegmentationBinaryAveragePrecision
from .seg_fpr95 import SegmentationFPR95
from .wrapper import SegmentationMetric
