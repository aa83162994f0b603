from .dataset import Dataset
from .schema import FeatureHint, FeatureInfo, FeatureSchema, FeatureSource, FeatureType
from .spark_schema import get_schema

__all__ = [
    "Dataset",
    "FeatureHint",
    "FeatureInfo",
    "FeatureSchema",
    "FeatureSource",
    "FeatureType",
    "get_schema",
]
