from .api import PredictionConfig, predict_pkas, predict_pkas_from_smiles
from .free_energy import (
    UnipkaFreeEnergyConfig,
    predict_standard_free_energy,
    predict_standard_free_energies,
)

__all__ = [
    "PredictionConfig",
    "UnipkaFreeEnergyConfig",
    "predict_pkas",
    "predict_pkas_from_smiles",
    "predict_standard_free_energy",
    "predict_standard_free_energies",
]
