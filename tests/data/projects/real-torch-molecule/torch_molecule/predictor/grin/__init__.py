from .modeling_grin import GRINMolecularPredictor

__all__ = ['GRINMolecularPredictor']