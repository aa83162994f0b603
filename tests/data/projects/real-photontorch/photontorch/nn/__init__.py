""" neural network (nn) extensions """

# custom functional additions
from .nn import Module
from .nn import Buffer
from .nn import BERLoss
from .nn import MSELoss
from .nn import BoundedParameter
from .nn import BitStreamGenerator
