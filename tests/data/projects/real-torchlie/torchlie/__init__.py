# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
__version__ = "0.1.0"

from .global_params import reset_global_params, set_global_params
from .lie_tensor import (  # usort: skip
    LieTensor,
    adj,
    as_euclidean,
    as_lietensor,
    cast,
    compose,
    from_tensor,
    inv,
    jcompose,
    jinv,
    jlog,
    jtransform,
    juntransform,
    left_act,
    left_project,
    local,
    log,
    transform,
    untransform,
)
from .types import SE3, SO3, ltype
