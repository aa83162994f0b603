"""Extensions of core functionality."""

__all__ = ["utilization", "uplift", "interpretation", "autots", "hypex"]
