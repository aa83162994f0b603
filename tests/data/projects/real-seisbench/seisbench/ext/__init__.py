from seisbench.ext.utils import get_edge_indices, stack_windows

__all__ = ["stack_windows", "get_edge_indices"]
