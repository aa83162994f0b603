"""Internal UVU implementation; use TensorProduct."""

__all__: list[str] = []
