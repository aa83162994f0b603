## bayesian_torch.quantization.prepare
## bayesian_torch.quantization.convert
from .quantize import *