"""Data loading, splitting, and augmentation."""

from fujicv.data.autoaugment import RandAugment, RandAugmentTransform  # noqa: F401 — re-exported
from fujicv.data.dataloader import build_dataloaders
from fujicv.data.datasets import CSVImageDataset, build_splits
from fujicv.data.hf_dataset import HFImageDataset, load_hf_dataset
from fujicv.data.mixup import CutMixCollator, MixupCollator, MixupCutMixCollator  # noqa: F401
from fujicv.data.sampler import (  # noqa: F401 — re-exported
    class_weights_from_labels,
    make_weighted_sampler,
)
from fujicv.data.transforms import get_hf_transforms, get_train_transforms, get_val_transforms

__all__ = [
    "CSVImageDataset",
    "build_splits",
    "build_dataloaders",
    "get_train_transforms",
    "get_val_transforms",
    "get_hf_transforms",
    "HFImageDataset",
    "load_hf_dataset",
    "MixupCollator",
    "CutMixCollator",
    "MixupCutMixCollator",
    "RandAugment",
    "RandAugmentTransform",
    "make_weighted_sampler",
    "class_weights_from_labels",
]
