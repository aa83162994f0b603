from .merge_block import Merge

__all__ = ["Merge"]
