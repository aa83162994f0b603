# ruff: noqa: F401
from .tabular import (
    BostonHousing,
    Concrete,
    EnergyEfficiency,
    EnergyPrediction,
    Kin8NM,
    NavalPropulsionPlant,
    PowerPlant,
    Protein,
    TabularRegressionDataset,
    WineQuality,
    Yacht,
)
