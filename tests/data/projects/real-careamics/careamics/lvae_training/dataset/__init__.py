from .config import MicroSplitDataConfig
from .lc_dataset import LCMultiChDloader
from .ms_dataset_ref import MultiChDloaderRef
from .multich_dataset import MultiChDloader
from .multicrop_dset import MultiCropDset
from .multifile_dataset import MultiFileDset
from .types import DataSplitType, DataType, TilingMode

__all__ = [
    "DataSplitType",
    "DataType",
    "LCMultiChDloader",
    "LCMultiChDloaderRef",
    "MicroSplitDataConfig",
    "MultiChDloader",
    "MultiChDloaderRef",
    "MultiCropDset",
    "MultiFileDset",
    "TilingMode",
]
