"""Low-rank adapter utilities for PyTorch models."""

from importlib.metadata import PackageNotFoundError, version

from .layers import (
    CheriParallelDepthwiseAdapter,
    CheriPostBlockAdapter,
    LowRankConv1dAdapter,
    LowRankLinearAdapter,
)
from .utils import (
    ADAPTER_FORMAT_VERSION,
    ADAPTER_PRESETS,
    BASE_TARGETS,
    DEFAULT_ADAPTER_ALPHA,
    AdapterConfig,
    BPNet_PRESETS,
    BPNet_TARGETS,
    Cherimoya_PRESETS,
    Cherimoya_TARGETS,
    adapter_parameters,
    adapter_state_dict,
    count_adapter_parameters,
    inject_adapters,
    iter_adapters,
    load_accessibility_with_adapter,
    load_adapter_bundle,
    load_model_with_adapter,
    module_specs,
    resolve_adapter_targets,
    save_adapter_bundle,
)

__all__ = [
    "ADAPTER_FORMAT_VERSION",
    "ADAPTER_PRESETS",
    "BASE_TARGETS",
    "DEFAULT_ADAPTER_ALPHA",
    "BPNet_PRESETS",
    "BPNet_TARGETS",
    "Cherimoya_PRESETS",
    "Cherimoya_TARGETS",
    "AdapterConfig",
    "CheriParallelDepthwiseAdapter",
    "CheriPostBlockAdapter",
    "LowRankConv1dAdapter",
    "LowRankLinearAdapter",
    "adapter_parameters",
    "adapter_state_dict",
    "count_adapter_parameters",
    "inject_adapters",
    "iter_adapters",
    "load_accessibility_with_adapter",
    "load_adapter_bundle",
    "load_model_with_adapter",
    "module_specs",
    "resolve_adapter_targets",
    "save_adapter_bundle",
]

try:
    __version__ = version("daicon")
except PackageNotFoundError:
    __version__ = "unknown"
