"""Worker components for time series prediction.

This module provides:
- parallel_workers: Parallel execution strategies (CPU, GPU, TabPFN)
- model_adapters: Model adapters for different ML libraries
"""

# Import parallel workers
from tabpfn_time_series.worker.parallel_workers import (
    ParallelWorker,
    CPUParallelWorker,
    GPUParallelWorker,
    TabPFNClientCPUParallelWorker,
    TabPFNRetryHandler,
)

# Import model adapters
from tabpfn_time_series.worker.model_adapters import (
    BaseModelAdapter,
    PointPredictionModelAdapter,
    TabPFNModelAdapter,
    InferenceConfig,
    PredictionOutput,
)

__all__ = [
    # Workers
    "ParallelWorker",
    "CPUParallelWorker",
    "GPUParallelWorker",
    "TabPFNClientCPUParallelWorker",
    "TabPFNRetryHandler",
    # Adapters
    "BaseModelAdapter",
    "PointPredictionModelAdapter",
    "TabPFNModelAdapter",
    "InferenceConfig",
    "PredictionOutput",
]
