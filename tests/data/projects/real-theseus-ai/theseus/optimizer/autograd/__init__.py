# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .baspacho_sparse_autograd import BaspachoSolveFunction
from .cholmod_sparse_autograd import CholmodSolveFunction
from .lu_cuda_sparse_autograd import LUCudaSolveFunction

__all__ = [
    "BaspachoSolveFunction",
    "CholmodSolveFunction",
    "LUCudaSolveFunction",
]
