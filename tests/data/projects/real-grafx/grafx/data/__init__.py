from .batch import batch_grafx
from .configs import NodeConfigs
from .conversion import convert_to_tensor
from .graph import GRAFX
from .tensor import GRAFXTensor
