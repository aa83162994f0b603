from .fttransformer import (
    FTTransformerClassifier,
    FTTransformerLSS,
    FTTransformerRegressor,
)
from .mambatab import MambaTabClassifier, MambaTabLSS, MambaTabRegressor
from .mambattention import (
    MambAttentionClassifier,
    MambAttentionLSS,
    MambAttentionRegressor,
)
from .mambular import MambularClassifier, MambularLSS, MambularRegressor
from .mlp import MLPLSS, MLPClassifier, MLPRegressor
from .ndtf import NDTFLSS, NDTFClassifier, NDTFRegressor
from .node import NODELSS, NODEClassifier, NODERegressor
from .resnet import ResNetClassifier, ResNetLSS, ResNetRegressor
from .saint import SAINTLSS, SAINTClassifier, SAINTRegressor
from .utils.sklearn_base_classifier import SklearnBaseClassifier
from .utils.sklearn_base_lss import SklearnBaseLSS
from .utils.sklearn_base_regressor import SklearnBaseRegressor
from .tabm import TabMClassifier, TabMLSS, TabMRegressor
from .tabtransformer import (
    TabTransformerClassifier,
    TabTransformerLSS,
    TabTransformerRegressor,
)
from .tabularnn import TabulaRNNClassifier, TabulaRNNLSS, TabulaRNNRegressor
from .autoint import AutoIntClassifier, AutoIntLSS, AutoIntRegressor
from .trompt import TromptClassifier, TromptLSS, TromptRegressor
from .enode import ENODEClassifier, ENODELSS, ENODERegressor
from .tangos import TangosClassifier, TangosLSS, TangosRegressor
from .modern_nca import ModernNCARegressor, ModernNCAClassifier, ModernNCALSS

__all__ = [
    "ModernNCARegressor",
    "ModernNCAClassifier",
    "ModernNCALSS",
    "TangosClassifier",
    "TangosLSS",
    "TangosRegressor",
    "ENODEClassifier",
    "ENODELSS",
    "ENODERegressor",
    "TromptClassifier",
    "TromptLSS",
    "TromptRegressor",
    "AutoIntClassifier",
    "AutoIntLSS",
    "AutoIntRegressor",
    "MLPLSS",
    "NDTFLSS",
    "NODELSS",
    "SAINTLSS",
    "FTTransformerClassifier",
    "FTTransformerLSS",
    "FTTransformerRegressor",
    "MLPClassifier",
    "MLPRegressor",
    "MambAttentionClassifier",
    "MambAttentionLSS",
    "MambAttentionRegressor",
    "MambaTabClassifier",
    "MambaTabLSS",
    "MambaTabRegressor",
    "MambularClassifier",
    "MambularLSS",
    "MambularRegressor",
    "NDTFClassifier",
    "NDTFRegressor",
    "NODEClassifier",
    "NODERegressor",
    "ResNetClassifier",
    "ResNetLSS",
    "ResNetRegressor",
    "SAINTClassifier",
    "SAINTRegressor",
    "SklearnBaseClassifier",
    "SklearnBaseLSS",
    "SklearnBaseRegressor",
    "TabMClassifier",
    "TabMLSS",
    "TabMRegressor",
    "TabTransformerClassifier",
    "TabTransformerLSS",
    "TabTransformerRegressor",
    "TabulaRNNClassifier",
    "TabulaRNNLSS",
    "TabulaRNNRegressor",
]
