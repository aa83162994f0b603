"""Learning utilities, including optimization and reinforcement learning."""

from . import data_management, optimizers

# ``data`` is the concise public name; ``data_management`` remains available
# for callers using the on-disk package name.
data = data_management

__all__ = [
    "data", "data_management",
    "optimizers"
]
