from ._cell2location_model import Cell2location
from ._cell2location_module import (
    LocationModelLinearDependentWMultiExperimentLocationBackgroundNormLevelGeneAlphaPyroModel,
)
from ._cell2location_WTA_model import Cell2location_WTA
from .downstream import CoLocatedGroupsSklearnNMF
from .reference import RegressionModel

__all__ = [
    "Cell2location",
    "RegressionModel",
    "Cell2location_WTA",
    "LocationModelLinearDependentWMultiExperimentLocationBackgroundNormLevelGeneAlphaPyroModel",
    "CoLocatedGroupsSklearnNMF",
]
