from .config import NODEConfig
from .node_model import NODEBackbone, NODEModel

__all__ = ["NODEModel", "NODEConfig", "NODEBackbone"]
