from .dataset import DataLoaderFactory, MultiProductDataset
from .encoders import LabelEncoder
from .features import FeatureBuilder
from .panel import PanelBuilder, PanelLayout
from .splits import BlockBootstrapSampler, TemporalSplitter

__all__ = [
    "BlockBootstrapSampler",
    "DataLoaderFactory",
    "FeatureBuilder",
    "LabelEncoder",
    "MultiProductDataset",
    "PanelBuilder",
    "PanelLayout",
    "TemporalSplitter",
]
