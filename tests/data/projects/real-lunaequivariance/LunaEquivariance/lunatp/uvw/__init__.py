"""Internal UVW implementation; use TensorProduct."""

__all__: list[str] = []
