"""CAREamics dataset factory functions and utilities."""

__all__ = [
    "ImageStackLoading",
    "IndependentTargets",
    "Loading",
    "MultiChannelTarget",
    "PairedInputTarget",
    "PredData",
    "ReadFuncLoading",
    "TrainValData",
    "TrainValSplitData",
    "create_dataset",
    "create_microsplit_dataset",
    "create_microsplit_pred_dataset",
    "create_pred_dataset",
    "create_train_dataset",
    "create_train_val_datasets",
    "create_val_split_datasets",
    "init_patch_extractor",
    "select_image_stack_loader",
    "select_patch_extractor_type",
]

from .factory import (
    ImageStackLoading,
    Loading,
    PredData,
    ReadFuncLoading,
    TrainValData,
    TrainValSplitData,
    create_dataset,
    create_pred_dataset,
    create_train_dataset,
    create_train_val_datasets,
    create_val_split_datasets,
    init_patch_extractor,
    select_image_stack_loader,
    select_patch_extractor_type,
)
from .microsplit_factory import (
    IndependentTargets,
    MultiChannelTarget,
    PairedInputTarget,
    create_microsplit_dataset,
    create_microsplit_pred_dataset,
)
