from kooplearn.linear_model._base import Ridge

__all__ = [
    "Ridge",
    ]
