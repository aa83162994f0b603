from .graphical_approximator import GraphicalApproximator

__all__ = ["GraphicalApproximator"]
