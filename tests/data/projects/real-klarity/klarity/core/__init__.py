from .analyzer import EntropyAnalyzer

__all__ = ['EntropyAnalyzer']