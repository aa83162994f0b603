from .config import MDNConfig
from .mdn import MDNModel

__all__ = [
    # "MixtureDensityHead",
    # "MixtureDensityHeadConfig",
    # "CategoryEmbeddingMDNConfig",
    # "CategoryEmbeddingMDN",
    # "NODEMDN",
    "MDNModel",
    "MDNConfig",
    # "AutoIntMDNConfig",
    # "AutoIntMDN"
]
