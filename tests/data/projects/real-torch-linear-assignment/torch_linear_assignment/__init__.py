"""Public exports for batched linear assignment."""

from .assignment import assignment_to_indices, batch_linear_assignment

__all__ = ["assignment_to_indices", "batch_linear_assignment"]
