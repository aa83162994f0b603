from xaytune.eval.benchmarks import benchmark_evaluate
from xaytune.eval.evaluate import evaluate
from xaytune.eval.metrics import metric_registry, register_metric

__all__ = ["benchmark_evaluate", "evaluate", "metric_registry", "register_metric"]
