from .metadata import (
    ColumnMetadata,
    Metadata,
    get_1d_array_columns,
    get_2d_array_columns,
    get_numeric_columns,
    get_padding,
    get_shape,
)

__all__ = [
    "ColumnMetadata",
    "Metadata",
    "get_1d_array_columns",
    "get_2d_array_columns",
    "get_numeric_columns",
    "get_padding",
    "get_shape",
]
