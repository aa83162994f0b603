from .modeling_lstm import LSTMMolecularGenerator

__all__ = ['LSTMMolecularGenerator']