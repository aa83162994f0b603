from . import decorator, definition, factory, registry
from .convencoder_umap import ConvEncoderUMAP
from .decorator import model
from .ed_tcn import ED_TCN
from .factory import ModelFactory
from .frame_classification_model import FrameClassificationModel
from .get import get
from .parametric_umap_model import ParametricUMAPModel
from .registry import model_family
from .tweetynet import TweetyNet

__all__ = [
    "factory",
    "ConvEncoderUMAP",
    "decorator",
    "definition",
    "ED_TCN",
    "FrameClassificationModel",
    "get",
    "ModelFactory",
    "model",
    "model_family",
    "ParametricUMAPModel",
    "registry",
    "TweetyNet",
]
