from .hnet_interface import HyperNetInterface

from .chunked_deconv_hnet import ChunkedHDeconv
from .chunked_mlp_hnet import ChunkedHMLP
from .hnet_container import HContainer
from .hnet_perturbation_wrapper import HPerturbWrapper
from .deconv_hnet import HDeconv
from .mlp_hnet import HMLP
from .structured_mlp_hnet import StructuredHMLP
