"""Quantum-correlation tools for flavor-mode neutrino states."""

from .flavor_modes import FlavorModeCorrelations, flavor_mode_correlations
from .wave_packet import GaussianWavePacket

__all__ = [
    "FlavorModeCorrelations",
    "GaussianWavePacket",
    "flavor_mode_correlations",
]
