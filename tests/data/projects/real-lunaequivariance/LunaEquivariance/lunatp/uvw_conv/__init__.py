"""Internal UVW_CONV implementation; use TensorProductConv."""

__all__: list[str] = []
