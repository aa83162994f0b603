# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .sparse_matrix_utils import (
    mat_vec,
    random_sparse_binary_matrix,
    random_sparse_matrix,
    sparse_mtv,
    sparse_mv,
    split_into_param_sizes,
    tmat_vec,
)
from .utils import (
    Profiler,
    Timer,
    build_mlp,
    check_jacobians,
    gather_from_rows_cols,
    numeric_grad,
    numeric_jacobian,
)
