from .modeling_graphmae import GraphMAEMolecularEncoder

__all__ = ['GraphMAEMolecularEncoder']