from .base import Base
from .cf_base import CfBase
from .cf_base_rs import RsCfBase
from .dyn_embed_base import DynEmbedBase
from .embed_base import EmbedBase
from .gensim_base import GensimBase
from .meta import ModelMeta
from .sage_base import SageBase
from .tf_base import TfBase

__all__ = [
    "Base",
    "CfBase",
    "RsCfBase",
    "DynEmbedBase",
    "EmbedBase",
    "GensimBase",
    "ModelMeta",
    "SageBase",
    "TfBase",
]
