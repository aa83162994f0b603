from kooplearn.kernel._base import KernelRidge
from kooplearn.kernel._generator import GeneratorDirichlet
from kooplearn.kernel._nystroem import NystroemKernelRidge

__all__ = [
    "GeneratorDirichlet",
    "KernelRidge",
    "NystroemKernelRidge",
]
