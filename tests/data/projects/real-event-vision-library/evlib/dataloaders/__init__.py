"""Low level data loaders for event camera datasets."""

from ._base import DataLoaderBase
from ._davis import DavisCameraCalibration
from ._davis import DavisFrameSample
from ._davis import DavisImuData
from ._davis import DavisPoseData
from ._davis import DavisRecordingLoader
from ._dsec import DSECDataLoader
from ._mvsec import MVSECDataLoader
from ._mvsec_types import MVSECOdometryData
from ._storage_common import LoadingType
from ._storage_common import LoadMode
from ._storage_common import ResidentLoadMode


__all__ = [
    "DavisCameraCalibration",
    "DavisFrameSample",
    "DavisImuData",
    "DavisPoseData",
    "DavisRecordingLoader",
    "DSECDataLoader",
    "DataLoaderBase",
    "LoadMode",
    "LoadingType",
    "MVSECDataLoader",
    "MVSECOdometryData",
    "ResidentLoadMode",
]
