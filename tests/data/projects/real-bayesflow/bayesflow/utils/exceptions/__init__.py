from .shape_error import ShapeError
