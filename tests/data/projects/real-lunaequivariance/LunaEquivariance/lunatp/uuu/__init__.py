"""UUU tensor-product implementation; invoke through TensorProduct."""

__all__ = []
