from humming.ops.bench import tops_bench
from humming.ops.gemm import humming_gemm
from humming.ops.input import process_input
from humming.ops.launcher import (
    get_kernel_smem_size,
    launch_kernel,
    register_kernel,
    register_process_input_kernel,
)
from humming.ops.weight import (
    convert_weight,
    dequant_weight,
    pack_weight,
    process_mxfp4_w4a8_weight,
    quant_weight,
    repack_weight,
    unpack_weight,
)

__all__ = [
    "register_kernel",
    "register_process_input_kernel",
    "get_kernel_smem_size",
    "launch_kernel",
    "process_input",
    "convert_weight",
    "quant_weight",
    "dequant_weight",
    "repack_weight",
    "pack_weight",
    "unpack_weight",
    "humming_gemm",
    "process_mxfp4_w4a8_weight",
    "tops_bench",
]
