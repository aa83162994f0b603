from .sskkernel import SubsequenceStringKernel

__all__ = ["SubsequenceStringKernel"]
