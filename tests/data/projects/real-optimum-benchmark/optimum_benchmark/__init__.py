from .backends import (
    BackendConfig,
    IPEXConfig,
    LlamaCppConfig,
    ORTConfig,
    OVConfig,
    PyTorchConfig,
    PyTXIConfig,
    TRTLLMConfig,
    VLLMConfig,
)
from .benchmark.base import Benchmark
from .benchmark.config import BenchmarkConfig
from .benchmark.report import BenchmarkReport
from .launchers import InlineConfig, LauncherConfig, ProcessConfig, TorchrunConfig
from .scenarios import EnergyStarConfig, InferenceConfig, ScenarioConfig, TrainingConfig

__all__ = [
    "BackendConfig",
    "Benchmark",
    "BenchmarkConfig",
    "BenchmarkReport",
    "EnergyStarConfig",
    "InferenceConfig",
    "IPEXConfig",
    "InlineConfig",
    "LauncherConfig",
    "ORTConfig",
    "OVConfig",
    "ProcessConfig",
    "PyTorchConfig",
    "PyTXIConfig",
    "ScenarioConfig",
    "TorchrunConfig",
    "TrainingConfig",
    "TRTLLMConfig",
    "VLLMConfig",
    "LlamaCppConfig",
]
