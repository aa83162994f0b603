# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .lie_group import LieGroup, adjoint, between, compose, exp_map, inverse, log_map
from .lie_group_check import (
    enable_lie_group_check,
    no_lie_group_check,
    set_lie_group_check_enabled,
)
from .manifold import Manifold, OptionalJacobians, local, retract
from .point_types import (
    Point2,
    Point3,
    rand_point2,
    rand_point3,
    randn_point2,
    randn_point3,
)
from .se2 import SE2, rand_se2, randn_se2
from .se3 import SE3, rand_se3, randn_se3
from .so2 import SO2, rand_so2, randn_so2
from .so3 import SO3, rand_so3, randn_so3
from .utils import (
    LieGroupTensor,
    enable_lie_tangent,
    no_lie_tangent,
    set_lie_tangent_enabled,
)
from .vector import Vector, rand_vector, randn_vector
