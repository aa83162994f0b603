from bayesian_torch.ao.quantization.quantize import prepare
from bayesian_torch.ao.quantization.quantize import convert