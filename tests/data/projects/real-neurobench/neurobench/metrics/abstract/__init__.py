from .static_metric import StaticMetric
from .workload_metric import WorkloadMetric, AccumulatedMetric

__all__ = ["StaticMetric", "WorkloadMetric", "AccumulatedMetric"]
