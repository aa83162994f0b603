from . import (
    autoint,
    category_embedding,
    danet,
    ft_transformer,
    gandalf,
    gate,
    mixture_density,
    node,
    tab_transformer,
    tabnet,
)
from .autoint import AutoIntConfig, AutoIntModel
from .base_model import BaseModel
from .category_embedding import CategoryEmbeddingModel, CategoryEmbeddingModelConfig
from .danet import DANetConfig, DANetModel
from .ft_transformer import FTTransformerConfig, FTTransformerModel
from .gandalf import GANDALFBackbone, GANDALFConfig, GANDALFModel
from .gate import GatedAdditiveTreeEnsembleConfig, GatedAdditiveTreeEnsembleModel
from .mixture_density import MDNConfig, MDNModel
from .node import NodeConfig, NODEModel
from .stacking import StackingModel, StackingModelConfig
from .tab_transformer import TabTransformerConfig, TabTransformerModel
from .tabnet import TabNetModel, TabNetModelConfig

__all__ = [
    "CategoryEmbeddingModel",
    "CategoryEmbeddingModelConfig",
    "NODEModel",
    "NodeConfig",
    "TabNetModel",
    "TabNetModelConfig",
    "BaseModel",
    "MDNModel",
    "MDNConfig",
    "AutoIntConfig",
    "AutoIntModel",
    "TabTransformerConfig",
    "TabTransformerModel",
    "FTTransformerConfig",
    "FTTransformerModel",
    "GatedAdditiveTreeEnsembleConfig",
    "GatedAdditiveTreeEnsembleModel",
    "GANDALFConfig",
    "GANDALFModel",
    "GANDALFBackbone",
    "DANetConfig",
    "DANetModel",
    "StackingModel",
    "StackingModelConfig",
    "category_embedding",
    "node",
    "mixture_density",
    "tabnet",
    "autoint",
    "ft_transformer",
    "tab_transformer",
    "gate",
    "gandalf",
    "danet",
    "stacking",
]
