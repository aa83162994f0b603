from pl_bolts.metrics.aggregation import accuracy, mean, precision_at_k

__all__ = [
    "accuracy",
    "mean",
    "precision_at_k",
]
