"""Downstream evaluation metrics."""

from quanda.metrics.downstream_eval.class_detection import ClassDetectionMetric
from quanda.metrics.downstream_eval.mislabeling_detection import (
    MislabelingDetectionMetric,
)
from quanda.metrics.downstream_eval.mrr import MRRMetric
from quanda.metrics.downstream_eval.recall_at_k import RecallAtKMetric
from quanda.metrics.downstream_eval.shortcut_detection import (
    ShortcutDetectionMetric,
)
from quanda.metrics.downstream_eval.subclass_detection import (
    SubclassDetectionMetric,
)
from quanda.metrics.downstream_eval.tail_patch import TailPatchMetric

__all__ = [
    "ClassDetectionMetric",
    "SubclassDetectionMetric",
    "MislabelingDetectionMetric",
    "ShortcutDetectionMetric",
    "MRRMetric",
    "RecallAtKMetric",
    "TailPatchMetric",
]
