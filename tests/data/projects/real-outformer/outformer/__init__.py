from outformer.core.jsonformer import Jsonformer
from outformer.formatters import highlight_values

__all__ = ["Jsonformer", "highlight_values"]
