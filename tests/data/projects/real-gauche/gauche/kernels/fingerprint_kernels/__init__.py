from .braun_blanquet_kernel import BraunBlanquetKernel
from .dice_kernel import DiceKernel
from .faith_kernel import FaithKernel
from .forbes_kernel import ForbesKernel
from .inner_product_kernel import InnerProductKernel
from .intersection_kernel import IntersectionKernel
from .minmax_kernel import MinMaxKernel
from .otsuka_kernel import OtsukaKernel
from .rand_kernel import RandKernel
from .rogers_tanimoto_kernel import RogersTanimotoKernel
from .russell_rao_kernel import RussellRaoKernel
from .sogenfrei_kernel import SogenfreiKernel
from .sokal_sneath_kernel import SokalSneathKernel
from .tanimoto_kernel import TanimotoKernel

__all__ = [
    "BraunBlanquetKernel",
    "DiceKernel",
    "FaithKernel",
    "ForbesKernel",
    "InnerProductKernel",
    "IntersectionKernel",
    "MinMaxKernel",
    "OtsukaKernel",
    "RandKernel",
    "RogersTanimotoKernel",
    "RussellRaoKernel",
    "SogenfreiKernel",
    "SokalSneathKernel",
    "TanimotoKernel",
]
