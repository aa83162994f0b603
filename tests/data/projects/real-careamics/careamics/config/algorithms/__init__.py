"""Algorithm configurations."""

__all__ = [
    "CAREAlgorithm",
    "HDNAlgorithm",
    "MicroSplitAlgorithm",
    "N2NAlgorithm",
    "N2VAlgorithm",
    "PN2VAlgorithm",
    "UNetBasedAlgorithm",
    "VAEBasedAlgorithm",
]

from .care_algorithm_config import CAREAlgorithm
from .hdn_algorithm_config import HDNAlgorithm
from .microsplit_algorithm_config import MicroSplitAlgorithm
from .n2n_algorithm_config import N2NAlgorithm
from .n2v_algorithm_config import N2VAlgorithm
from .pn2v_algorithm_config import PN2VAlgorithm
from .unet_algorithm_config import UNetBasedAlgorithm
from .vae_algorithm_config import VAEBasedAlgorithm
