from .model import DeepLabV3, DeepLabV3Plus  # noqa: F401
