from .detect import latex_detect

__all__ = ["latex_detect"]
