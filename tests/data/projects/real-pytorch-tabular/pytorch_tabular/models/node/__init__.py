from .config import NodeConfig
from .node_model import NODEBackbone, NODEModel

__all__ = ["NODEModel", "NodeConfig", "NODEBackbone"]
