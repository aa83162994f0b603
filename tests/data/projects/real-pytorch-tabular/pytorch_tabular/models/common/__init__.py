from pytorch_tabular.models.common import heads, layers
from pytorch_tabular.models.common.layers import activations

__all__ = ["activations", "layers", "heads"]
