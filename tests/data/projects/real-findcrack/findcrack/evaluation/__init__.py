from .metrics import calculate_metrics

__all__ = ["calculate_metrics"]
