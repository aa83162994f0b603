"""Simulation orchestration utilities for WeatherFlow."""

from .orchestrator import (
    ResolutionTier,
    SimulationCoreSpec,
    SimulationOrchestrator,
)

__all__ = [
    "ResolutionTier",
    "SimulationCoreSpec",
    "SimulationOrchestrator",
]
