class ArrayShapeDoesNotMatchError(Exception):
    pass
