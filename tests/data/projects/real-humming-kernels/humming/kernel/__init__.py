from humming.kernel.dequant_weight import DequantKernel
from humming.kernel.humming import HummingKernel
from humming.kernel.pack_weight import PackWeightKernel
from humming.kernel.quant_weight import QuantWeightKernel
from humming.kernel.repack_weight import RepackWeightKernel
from humming.kernel.tops_bench import TopsBenchKernel
from humming.kernel.unpack_weight import UnpackWeightKernel

__all__ = [
    "DequantKernel",
    "HummingKernel",
    "PackWeightKernel",
    "QuantWeightKernel",
    "RepackWeightKernel",
    "TopsBenchKernel",
    "UnpackWeightKernel",
]
