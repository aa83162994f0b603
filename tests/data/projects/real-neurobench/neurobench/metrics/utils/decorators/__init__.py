from .check_shape import check_shapes

__all__ = ["check_shapes"]
