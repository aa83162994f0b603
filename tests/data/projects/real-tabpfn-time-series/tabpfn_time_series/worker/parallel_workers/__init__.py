"""Parallel execution strategies for time series prediction."""

from tabpfn_time_series.worker.parallel_workers.base import ParallelWorker
from tabpfn_time_series.worker.parallel_workers.cpu_worker import CPUParallelWorker
from tabpfn_time_series.worker.parallel_workers.gpu_worker import GPUParallelWorker
from tabpfn_time_series.worker.parallel_workers.tabpfn_client_worker import (
    TabPFNClientCPUParallelWorker,
    TabPFNRetryHandler,
)

__all__ = [
    "ParallelWorker",
    "CPUParallelWorker",
    "GPUParallelWorker",
    "TabPFNClientCPUParallelWorker",
    "TabPFNRetryHandler",
]
