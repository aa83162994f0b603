import contextlib
import os
import random

import numpy as np
import torch

from fme.core.distributed import Distributed

USE_CPU_RANDN = False

# When set (via ``use_generator``), randn/randn_like draw from this generator
# instead of the global torch RNG. The generator lives on the CPU; draws are
# generated on the CPU and then moved to the requested device. This makes
# stochastic draws reproducible and independent both of the compute device and
# of unrelated global-RNG consumption elsewhere in the process.
_ACTIVE_GENERATOR: torch.Generator | None = None


def set_seed(seed: int):
    """
    Set the seed for all random number generators, including numpy, random, torch,
    and Distributed.

    Args:
        seed: The seed to set.
    """
    # https://stackoverflow.com/questions/32419510/how-to-get-reproducible-results-in-keras
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed + 1)
    random.seed(seed + 2)
    torch.manual_seed(seed + 3)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed + 4)
    dist = Distributed.get_instance()
    dist.set_seed(seed + 5)


def randn_like(x: torch.Tensor, **kwargs):
    if _ACTIVE_GENERATOR is not None:
        device = kwargs.pop("device", x.device)
        dtype = kwargs.pop("dtype", x.dtype)
        # torch.randn_like does not accept a generator, so draw with torch.randn
        # using the tensor's shape on the (CPU) generator, then move to device.
        return torch.randn(
            x.shape, generator=_ACTIVE_GENERATOR, dtype=dtype, **kwargs
        ).to(device)
    if USE_CPU_RANDN:
        device = kwargs.pop("device", x.device)
        return torch.randn_like(x, device="cpu", **kwargs).to(device)
    else:
        return torch.randn_like(x, **kwargs)


def randn(shape: torch.Size, **kwargs) -> torch.Tensor:
    if _ACTIVE_GENERATOR is not None:
        device = kwargs.pop("device", None)
        result = torch.randn(shape, generator=_ACTIVE_GENERATOR, **kwargs)
        return result if device is None else result.to(device)
    if USE_CPU_RANDN:
        device = kwargs.pop("device", None)
        return torch.randn(shape, device="cpu", **kwargs).to(device)
    else:
        return torch.randn(shape, **kwargs)


def log_normal_sample(
    p_mean: float, p_std: float, shape: torch.Size, dtype: torch.dtype
) -> torch.Tensor:
    rnd = randn(shape, dtype=dtype)
    return (rnd * p_std + p_mean).exp()


def log_uniform_sample(
    p_min: float, p_max: float, shape: torch.Size, dtype: torch.dtype
) -> torch.Tensor:
    return torch.exp(
        torch.empty(shape, dtype=dtype).uniform_(np.log(p_min), np.log(p_max))
    )


@contextlib.contextmanager
def use_generator(generator: torch.Generator | None):
    """Route ``randn``/``randn_like`` draws through a specific CPU generator.

    While active, random numbers are drawn on the CPU using ``generator`` and
    then moved to the requested device, so draws are reproducible given the
    generator's seed and independent of the device and of unrelated global-RNG
    consumption. Nested use restores the previous generator on exit. A ``None``
    generator is a no-op, preserving the default global-RNG behavior.

    Args:
        generator: The CPU generator to draw from, or None for a no-op.
    """
    global _ACTIVE_GENERATOR
    if generator is None:
        yield
        return
    old_generator = _ACTIVE_GENERATOR
    _ACTIVE_GENERATOR = generator
    try:
        yield
    finally:
        _ACTIVE_GENERATOR = old_generator


@contextlib.contextmanager
def use_cpu_randn():
    """
    Context manager to use CPU when generating random numbers for
    randn and randn_like.

    This is likely less performant than generating them directly on the GPU,
    but it allows comparing regression outputs between machines.
    """
    global USE_CPU_RANDN
    old_use_cpu_randn = USE_CPU_RANDN
    USE_CPU_RANDN = True
    yield
    USE_CPU_RANDN = old_use_cpu_randn


def alternate_seed(seed: int) -> int:
    """
    Get the alternate seed given a seed.

    Used when a new deterministic random shuffle is desired.
    """
    g = torch.Generator()
    g.manual_seed(seed)
    return int(torch.randint(0, 2**31, (1,), generator=g).item())
