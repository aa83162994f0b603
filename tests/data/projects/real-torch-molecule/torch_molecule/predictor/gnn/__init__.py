from .modeling_gnn import GNNMolecularPredictor

__all__ = ['GNNMolecularPredictor']