"""This module contains functions for model training/evaluation on ImageNet dataset."""

__all__ = [
    "create_imagenet_dataset",
    "create_resnet18_model",
    "loss_imagenet_resnet18",
    "train_imagenet_resnet18",
]


from .data import create_imagenet_dataset
from .imagenet_resnet18 import (
    create_resnet18_model,
    loss_imagenet_resnet18,
    train_imagenet_resnet18,
)
