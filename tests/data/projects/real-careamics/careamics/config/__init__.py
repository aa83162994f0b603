"""CAREamics Pydantic configurations."""

__all__ = [
    "CAREAlgorithm",
    "DataConfig",
    "GaussianMixtureNMConfig",
    "HDNAlgorithm",
    "LVAEConfig",
    "LVAELossConfig",
    "MaxPatchFilterConfig",
    "MeanStdPatchFilterConfig",
    "MicroSplitAlgorithm",
    "MicroSplitDataConfig",
    "MultiChannelNMConfig",
    "N2NAlgorithm",
    "N2VAlgorithm",
    "PN2VAlgorithm",
    "ShannonPatchFilterConfig",
    "UNetBasedAlgorithm",
    "UNetConfig",
    "VAEBasedAlgorithm",
    "create_advanced_care_config",
    "create_advanced_n2n_config",
    "create_advanced_n2v_config",
    "create_care_config",
    "create_data_configuration",
    "create_n2n_config",
    "create_n2v_config",
    "create_structn2v_config",
]

from .algorithms import (
    CAREAlgorithm,
    HDNAlgorithm,
    MicroSplitAlgorithm,
    N2NAlgorithm,
    N2VAlgorithm,
    PN2VAlgorithm,
    UNetBasedAlgorithm,
    VAEBasedAlgorithm,
)
from .architectures import LVAEConfig, UNetConfig
from .data import (
    DataConfig,
    MaxPatchFilterConfig,
    MeanStdPatchFilterConfig,
    MicroSplitDataConfig,
    ShannonPatchFilterConfig,
)
from .factories import (
    create_advanced_care_config,
    create_advanced_n2n_config,
    create_advanced_n2v_config,
    create_care_config,
    create_n2n_config,
    create_n2v_config,
    create_structn2v_config,
)
from .factories.data_factory import create_data_configuration
from .losses.loss_config import LVAELossConfig
from .noise_model import (
    GaussianMixtureNMConfig,
    MultiChannelNMConfig,
)
