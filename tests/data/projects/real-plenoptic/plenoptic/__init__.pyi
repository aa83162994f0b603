#!/usr/bin/env python3

__all__ = [
    "__version__",
    "models",
    "process",
    "data",
    "metric",
    "plot",
    "Metamer",
    "MetamerCTF",
    "Eigendistortion",
    "MADCompetition",
    "remove_grad",
    "load_images",
    "to_numpy",
    "convert_float_to_int",
    "external",
    "io",
    "loss",
    "regularize",
    "validate",
    "set_seed",
]

from . import (
    data,
    external,
    io,
    loss,
    metric,
    models,
    plot,
    process,
    regularize,
    validate,
)
from ._synthesize import Eigendistortion, MADCompetition, Metamer, MetamerCTF
from .loss import set_seed
from .tensors import convert_float_to_int, load_images, to_numpy
from .validate import remove_grad
from .version import __version__
