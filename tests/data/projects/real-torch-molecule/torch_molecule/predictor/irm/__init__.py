from .modeling_irm import IRMMolecularPredictor

__all__ = ['IRMMolecularPredictor']