from .model_zoo import roma_indoor, roma_outdoor  # noqa: F401
