"""Euclid public API.

Build models through grouped namespaces, for example::

    model = euclid.networks.Sequential([
        euclid.layers.Dense(784, 128),
        euclid.layers.ReLU(),
    ])

The former flat names (such as ``euclid.Dense``) are retained lazily as
deprecated compatibility aliases.
"""

from __future__ import annotations

import warnings

from .settings import xp
from .core import Tensor, math
from . import core, learning, neural_network, utils
from .neural_network import layers, losses, networks
from .learning import data, optimizers
from .utils import  load_model, save_model, to_numpy, to_xp, change_device,change_precision
from .utils import Utilities
__all__ = [
    "Tensor", "math", "xp", "core", "learning", "neural_network", "utils",
    "layers", "losses", "networks", "algorithms", "data", "environment",
    "episode", "optimizers", "policies", "change_settings", "load_model",
    "save_model", "to_numpy", "to_xp",
]

_DEPRECATED_ALIASES = {
    "Network": networks.Network,
    "Sequential": networks.Sequential,
    "Layer": layers.Layer,
    "Dense": layers.Dense,
    "Dropout": layers.Dropout,
    "Flatten": layers.Flatten,
    "Conv2D": layers.Conv2D,
    "MaxPool2D": layers.MaxPool2D,
    "Upsample2D": layers.Upsample2D,
    "Reshape": layers.Reshape,
    "Activation": layers.Activation,
    "Linear": layers.Linear,
    "ReLU": layers.ReLU,
    "LeakyReLU": layers.LeakyReLU,
    "Sigmoid": layers.Sigmoid,
    "Tanh": layers.Tanh,
    "Softmax": layers.Softmax,
    "Loss": losses.Loss,
    "MSE": losses.MSE,
    "Huber": losses.Huber,
    "CrossEntropy": losses.CrossEntropy,
    "Optimizer": optimizers.Optimizer,
    "SGD": optimizers.SGD,
    "Adam": optimizers.Adam,
    "RMSProp": optimizers.RMSProp,
    "DataLoader": data.DataLoader,
}


def __getattr__(name: str):
    """Resolve pre-1.0 flat imports while guiding callers to namespaces."""
    try:
        value = _DEPRECATED_ALIASES[name]
    except KeyError as error:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from error

    namespace = {
        "Network": "networks", "Sequential": "networks",
        "Loss": "losses", "MSE": "losses", "Huber": "losses", "CrossEntropy": "losses",
        "Optimizer": "optimizers", "SGD": "optimizers", "Adam": "optimizers", "RMSProp": "optimizers",
        "RLAlgorithm": "algorithms", "REINFORCE": "algorithms", "PPO": "algorithms",
        "Policy": "policies", "GaussianPolicy": "policies", "CategoricalPolicy": "policies",
        "DataLoader": "data", "Environment": "environment", "Episode": "episode",
    }.get(name, "layers")
    warnings.warn(
        f"euclid.{name} is deprecated; use euclid.{namespace}.{name} instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
