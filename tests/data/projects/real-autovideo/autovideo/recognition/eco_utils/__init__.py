from .eco.pytorch_load import ECOModel
from .eco_full.pytorch_load import ECOFullModel
