from hessian_eigenthings.algorithms.lanczos import (
    LanczosTridiag,
    lanczos,
    lanczos_tridiagonal,
)
from hessian_eigenthings.algorithms.power_iteration import (
    deflated_power_iteration,
    power_iteration_one,
)
from hessian_eigenthings.algorithms.result import EigenResult
from hessian_eigenthings.algorithms.spectral_density import (
    SpectralDensityResult,
    spectral_density,
)
from hessian_eigenthings.algorithms.trace import (
    TraceResult,
    hutch_plus_plus,
    hutchinson,
    trace,
)

__all__ = [
    "EigenResult",
    "LanczosTridiag",
    "SpectralDensityResult",
    "TraceResult",
    "deflated_power_iteration",
    "hutch_plus_plus",
    "hutchinson",
    "lanczos",
    "lanczos_tridiagonal",
    "power_iteration_one",
    "spectral_density",
    "trace",
]
