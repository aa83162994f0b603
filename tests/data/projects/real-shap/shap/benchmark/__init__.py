from ._compute import ComputeTime
from ._explanation_error import ExplanationError
from ._result import BenchmarkResult
from ._sequential import SequentialMasker

# from . import framework
# from .. import datasets

__all__ = ["ComputeTime", "ExplanationError", "BenchmarkResult", "SequentialMasker"]
