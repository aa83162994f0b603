"""Data loading, processing, and utilities for ice sheet emulation.

This package provides:
- ``ForcingFile``: load and process climate forcing NetCDF data.
- ``GridFile``: load and format sector grid definitions.
- ``ISEFlowAISInputs``, ``ISEFlowGrISInputs``: input dataclasses for ISEFlow predictions.
- ``AnomalyConverter``: convert raw absolute forcing arrays to anomalies using bundled ISMIP6 climatologies; used internally by ``from_absolute_forcings()`` on the input dataclasses.
- ``feature_engineer``: FeatureEngineer and helpers for scaling, splitting, and lag variables.
- ``dataclasses``: EmulatorDataset, PyTorchDataset, TSDataset, ScenarioDataset.
- ``process``: ProjectionProcessor and sector-level forcing/projection processing.
- ``scaler``: PyTorch-based StandardScaler, RobustScaler, LogScaler.
- ``utils``: time conversion and subsetting for xarray datasets.
"""

from .anomaly import AnomalyConverter
from .forcings import ForcingFile
from .grids import GridFile
from .inputs import ISEFlowAISInputs, ISEFlowGrISInputs

__all__ = [
    "AnomalyConverter",
    "ForcingFile",
    "GridFile",
    "ISEFlowAISInputs",
    "ISEFlowGrISInputs",
]
