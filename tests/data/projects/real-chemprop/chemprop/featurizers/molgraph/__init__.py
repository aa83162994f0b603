from .cache import MolGraphCache, MolGraphCacheFacade, MolGraphCacheOnTheFly
from .molecule import (
    BatchCuikMolGraph,
    CuikmolmakerMolGraphFeaturizer,
    SimpleMoleculeMolGraphFeaturizer,
)
from .reaction import (
    CGRFeaturizer,
    CondensedGraphOfReactionFeaturizer,
    CuikmolmakerCGRFeaturizer,
    RxnMode,
)

__all__ = [
    "MolGraphCacheFacade",
    "MolGraphCache",
    "MolGraphCacheOnTheFly",
    "SimpleMoleculeMolGraphFeaturizer",
    "CuikmolmakerMolGraphFeaturizer",
    "CuikmolmakerCGRFeaturizer",
    "CondensedGraphOfReactionFeaturizer",
    "CGRFeaturizer",
    "RxnMode",
]
