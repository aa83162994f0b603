# Copyright 2016-2020 The GPflow Contributors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# flake8: noqa

from . import (
    conditionals,
    config,
    covariances,
    expectations,
    experimental,
    functions,
    inducing_variables,
    kernels,
    kullback_leiblers,
    likelihoods,
    logdensities,
    mean_functions,
    models,
    monitor,
    optimizers,
    posteriors,
    probability_distributions,
    quadrature,
    utilities,
)
from .base import Module, Parameter
from .config import default_float, default_int, default_jitter
from .utilities import set_trainable
from .versions import __version__

__all__ = [
    "Module",
    "Parameter",
    "__version__",
    "base",
    "ci_utils",
    "conditionals",
    "config",
    "covariances",
    "default_float",
    "default_int",
    "default_jitter",
    "expectations",
    "experimental",
    "functions",
    "inducing_variables",
    "keras",
    "kernels",
    "kullback_leiblers",
    "likelihoods",
    "logdensities",
    "mean_functions",
    "models",
    "monitor",
    "mypy_flags",
    "optimizers",
    "posteriors",
    "probability_distributions",
    "quadrature",
    "set_trainable",
    "type_flags",
    "utilities",
    "versions",
]
