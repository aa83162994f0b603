from .macs import single_layer_MACs

__all__ = ["single_layer_MACs"]
