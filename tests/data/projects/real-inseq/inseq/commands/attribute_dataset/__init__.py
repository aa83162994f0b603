from .attribute_dataset import AttributeDatasetCommand

__all__ = [
    "AttributeDatasetCommand",
]
