# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .collision import Collision2D
from .eff_obj_contact import EffectorObjectContactPlanar
from .signed_distance_field import SignedDistanceField2D
