
from .norm import NormNonLinearity
from .induced_norm import InducedNormNonLinearity
from .pointwise import PointwiseNonLinearity
from .concatenated import ConcatenatedNonLinearity
from .gated1 import GatedNonLinearity1, GATES_ID, GATED_ID
from .gated2 import GatedNonLinearity2
from .gated3 import GatedNonLinearityUniform
from .induced_gated1 import InducedGatedNonLinearity1
from .vectorfield import VectorFieldNonLinearity

from .relu import ReLU
from .elu import ELU
from .leakyrelu import LeakyReLU

from .fourier import *
from .fourier_quotient import *

from .tensor import *

__all__ = [
    "NormNonLinearity",
    "InducedNormNonLinearity",
    "PointwiseNonLinearity",
    "ConcatenatedNonLinearity",
    "GatedNonLinearity1",
    "GatedNonLinearity2",
    "GatedNonLinearityUniform",
    "InducedGatedNonLinearity1",
    "VectorFieldNonLinearity",
    "ReLU",
    "ELU",
    "LeakyReLU",
    "FourierPointwise",
    "FourierELU",
    "QuotientFourierPointwise",
    "QuotientFourierELU",
    "TensorProductModule",
]


