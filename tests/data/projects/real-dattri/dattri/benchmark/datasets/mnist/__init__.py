"""This module contains functions for model training/evaluation on the MNIST dataset."""

__all__ = [
    "LogisticRegressionMnist",
    "MLPMnist",
    "create_lr_model",
    "create_mlp_model",
    "create_mnist_dataset",
    "loss_mnist_lr",
    "loss_mnist_mlp",
    "train_mnist_lr",
    "train_mnist_mlp",
]

from .data import create_mnist_dataset
from .mnist_lr import (
    LogisticRegressionMnist,
    create_lr_model,
    loss_mnist_lr,
    train_mnist_lr,
)
from .mnist_mlp import MLPMnist, create_mlp_model, loss_mnist_mlp, train_mnist_mlp
