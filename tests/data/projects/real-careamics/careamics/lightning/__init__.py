"""CAREamics PyTorch Lightning modules."""

__all__ = [
    "CAREModule",
    "CareamicsDataModule",
    "ConfigSaverCallback",
    "DataStatsCallback",
    "ImageStackLoading",
    "MicroSplitDataModule",
    "N2VModule",
    "PredictionStoppedException",
    "ProgressBarCallback",
    "ReadFuncLoading",
    "StopPredictionCallback",
    "convert_prediction",
    "create_microsplit_predict_datamodule",
    "create_microsplit_train_datamodule",
    "load_config_from_checkpoint",
    "load_module_from_checkpoint",
]

# exporting for lightning-API user's convenience
from careamics.dataset.factory import ImageStackLoading, ReadFuncLoading

from .callbacks import (
    ConfigSaverCallback,
    DataStatsCallback,
    PredictionStoppedException,
    ProgressBarCallback,
    StopPredictionCallback,
)
from .data import CareamicsDataModule
from .data.microsplit_data_module import (
    MicroSplitDataModule,
    create_microsplit_predict_datamodule,
    create_microsplit_train_datamodule,
)
from .modules import CAREModule, N2VModule
from .prediction import convert_prediction
from .utils import load_config_from_checkpoint, load_module_from_checkpoint
