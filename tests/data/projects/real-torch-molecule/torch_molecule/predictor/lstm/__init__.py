from .modeling_lstm import LSTMMolecularPredictor

__all__ = ['LSTMMolecularPredictor']