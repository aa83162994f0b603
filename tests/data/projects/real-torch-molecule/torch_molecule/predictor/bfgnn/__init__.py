from .modeling_bfgnn import BFGNNMolecularPredictor

__all__ = ['BFGNNMolecularPredictor']