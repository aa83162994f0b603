from torchkeras.tabular.models.common import heads, layers
from torchkeras.tabular.models.common.layers import activations

__all__ = ["activations", "layers", "heads"]
