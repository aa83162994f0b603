from .modeling_rpgnn import RPGNNMolecularPredictor

__all__ = ['RPGNNMolecularPredictor']