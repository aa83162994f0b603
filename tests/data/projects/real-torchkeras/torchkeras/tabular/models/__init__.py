from . import (
    autoint,
    category_embedding,
    danet,
    ft_transformer,
    gandalf,
    gate,
    node,
    tab_transformer,
    tabnet,
    fm,
    deepfm,
    deepcross,
    pemlp,
    deepknn,
    tabm
)

from .autoint import AutoIntConfig, AutoIntModel
from .base_model import BaseModel
from .category_embedding import CategoryEmbeddingModel, CategoryEmbeddingModelConfig
from .danet import DANetConfig, DANetModel
from .ft_transformer import FTTransformerConfig, FTTransformerModel
from .gandalf import GANDALFBackbone, GANDALFConfig, GANDALFModel
from .gate import GatedAdditiveTreeEnsembleConfig, GatedAdditiveTreeEnsembleModel
from .node import NODEConfig, NODEModel
from .tab_transformer import TabTransformerConfig, TabTransformerModel
from .tabnet import TabNetModel, TabNetModelConfig
from .fm import FMModel, FMConfig
from .deepfm import DeepFMModel, DeepFMConfig
from .deepcross import DeepCrossModel, DeepCrossConfig
from .pemlp import PeMLPModel, PeMLPConfig
from .deepknn import DeepKNNModel, DeepKNNConfig
from .tabm import TabMModel, TabMConfig

__all__ = [
    "BaseModel",
    
    "CategoryEmbeddingModel",
    "CategoryEmbeddingModelConfig",
    "category_embedding",
    
    "NODEModel",
    "NODEConfig",
    "node",
    
    "TabNetModel",
    "TabNetModelConfig",
    "tabnet",
    
    "AutoIntConfig",
    "AutoIntModel",
    "autoint",
    
    "TabTransformerConfig",
    "TabTransformerModel",
    "tab_transformer",
    
    "FTTransformerConfig",
    "FTTransformerModel",
    "ft_transformer",
    
    "GatedAdditiveTreeEnsembleConfig",
    "GatedAdditiveTreeEnsembleModel",
    "gate",
    
    "GANDALFConfig",
    "GANDALFModel",
    "GANDALFBackbone",
    "gandalf",
    
    "DANetConfig",
    "DANetModel",
    "danet",

    "FMConfig",
    "FMModel",    
    "fm",

    "DeepFMConfig",
    "DeepFMModel",
    "deepfm",

    "DeepCrossConfig",
    "DeepCrossModel",
    "deepcross",

    "PeMLPConfig",
    "PeMLPModel",
    "pemlp",

    "DeepKNNConfig",
    "DeepKNNModel",
    "deepknn",
    
    'TabMConfig',
    'TabMModel',
    'tabm'
]
