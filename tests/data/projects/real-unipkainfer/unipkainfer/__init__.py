"""Standalone Uni-pKa inference API."""

from .paths import default_model_dir
from .pka_predictor import (
    PredictionConfig,
    UnipkaFreeEnergyConfig,
    predict_pkas,
    predict_pkas_from_smiles,
    predict_standard_free_energy,
    predict_standard_free_energies,
)

__all__ = [
    "PredictionConfig",
    "UnipkaFreeEnergyConfig",
    "default_model_dir",
    "predict_pkas",
    "predict_pkas_from_smiles",
    "predict_standard_free_energy",
    "predict_standard_free_energies",
]
