# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .dense_linearization import DenseLinearization
from .linearization import Linearization
from .manifold_gaussian import ManifoldGaussian, local_gaussian, retract_gaussian
from .optimizer import Optimizer, OptimizerInfo
from .sparse_linearization import SparseLinearization
from .variable_ordering import VariableOrdering
