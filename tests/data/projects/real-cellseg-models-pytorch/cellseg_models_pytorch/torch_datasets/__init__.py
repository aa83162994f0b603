from .folder_dataset_infer import FolderDatasetInfer
from .folder_dataset_train import TrainDatasetFolder
from .hdf5_dataset_train import TrainDatasetH5
from .wsi_dataset_infer import WSIDatasetInfer

__all__ = [
    "FolderDatasetInfer",
    "WSIDatasetInfer",
    "TrainDatasetH5",
    "TrainDatasetFolder",
]
