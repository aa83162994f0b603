"""Inference sampling core: MOSS sigma schedule, Euler steps, packed / two-pass CFG."""

from kohakumoss.diffusion.sampling.sample import (
    CFG_MODES,
    SampleResult,
    initial_noise,
    latent_grid,
    sample_latents,
    unpack,
)
from kohakumoss.diffusion.sampling.schedule import moss_sigmas

__all__ = [
    "CFG_MODES",
    "SampleResult",
    "initial_noise",
    "latent_grid",
    "moss_sigmas",
    "sample_latents",
    "unpack",
]
