from .bo import expected_improvement, propose_next_point

__all__ = [
    "expected_improvement",
    "propose_next_point",
]
