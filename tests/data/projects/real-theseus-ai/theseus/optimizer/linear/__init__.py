# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

import torch

from .baspacho_sparse_solver import BaspachoSparseSolver
from .cholmod_sparse_solver import CholmodSparseSolver
from .dense_solver import CholeskyDenseSolver, DenseSolver, LUDenseSolver
from .linear_optimizer import LinearOptimizer
from .linear_solver import LinearSolver
from .lu_cuda_sparse_solver import LUCudaSparseSolver
