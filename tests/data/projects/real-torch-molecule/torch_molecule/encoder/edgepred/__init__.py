from .modeling_edgepred import EdgePredMolecularEncoder

__all__ = ['EdgePredMolecularEncoder']