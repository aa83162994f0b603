from .factorized_convolution import FactorizedConv
from .tensor_regression_layers import TRL
from .tensor_contraction_layers import TCL
from .factorized_linear import FactorizedLinear
from .factorized_embedding import FactorizedEmbedding
