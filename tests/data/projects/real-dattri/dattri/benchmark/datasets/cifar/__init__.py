"""This module contains functions for model training/evaluation on CIFAR-2 dataset."""

__all__ = [
    "create_cifar2_dataset",
    "create_cifar_dataset",
    "create_resnet9_model",
    "loss_cifar_resnet9",
    "train_cifar_resnet9",
]

from .cifar_resnet9 import (
    create_resnet9_model,
    loss_cifar_resnet9,
    train_cifar_resnet9,
)
from .data import (
    create_cifar2_dataset,
    create_cifar_dataset,
)
