from .__drop import DropBlock2d, DropPath, drop_block_2d, drop_block_fast_2d, drop_path
from .__helpers import to_2tuple
from .__weight_init import trunc_normal_

__all__ = [
    "drop_block_2d",
    "drop_block_fast_2d",
    "drop_path",
    "DropBlock2d",
    "DropPath",
    "trunc_normal_",
    "to_2tuple",
]
