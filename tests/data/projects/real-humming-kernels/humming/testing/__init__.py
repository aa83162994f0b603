from humming.testing.benchmark import save_benchmark_result
from humming.testing.data import generate_random_moe_tensors, random_fill_tensor
from humming.testing.device import skip_if_unsupported
from humming.testing.runner import (
    KernelTestCase,
    KernelTestRunner,
    assert_kernel_test_shape_coverage,
)

__all__ = [
    "KernelTestCase",
    "KernelTestRunner",
    "assert_kernel_test_shape_coverage",
    "generate_random_moe_tensors",
    "random_fill_tensor",
    "save_benchmark_result",
    "skip_if_unsupported",
]
