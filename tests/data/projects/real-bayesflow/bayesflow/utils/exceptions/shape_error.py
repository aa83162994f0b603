class ShapeError(Exception):
    """Class for error in expected shapes."""

    pass
