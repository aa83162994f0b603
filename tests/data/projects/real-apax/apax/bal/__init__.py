from apax.bal.api import kernel_selection

__all__ = ["kernel_selection"]
