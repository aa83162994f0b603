from advsecurenet.shared.types.dataset import DatasetType, DataType
from advsecurenet.shared.types.model import ModelType


__all__ = [
    "DatasetType",
    "DataType",
    "ModelType",
]
