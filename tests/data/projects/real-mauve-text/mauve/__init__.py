from .compute_mauve import compute_mauve

__all__ = ['compute_mauve']
