# Copyright 2023 DeepMind Technologies Limited
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Public API for MJX."""

# isort: off
from mujoco.mjx._src.forward import step
from mujoco.mjx._src.types import Model
from mujoco.mjx._src.types import Data
# isort: on

# pylint:disable=g-importing-member
from mujoco.mjx._src.bvh import refit_bvh
from mujoco.mjx._src.collision_driver import collision
from mujoco.mjx._src.constraint import make_constraint
from mujoco.mjx._src.derivative import deriv_smooth_vel
from mujoco.mjx._src.forward import euler
from mujoco.mjx._src.forward import forward
from mujoco.mjx._src.forward import fwd_acceleration
from mujoco.mjx._src.forward import fwd_actuation
from mujoco.mjx._src.forward import fwd_position
from mujoco.mjx._src.forward import fwd_velocity
from mujoco.mjx._src.forward import implicit
from mujoco.mjx._src.forward import rungekutta4
from mujoco.mjx._src.inverse import inverse
from mujoco.mjx._src.io import create_render_context
from mujoco.mjx._src.io import get_data
from mujoco.mjx._src.io import get_data_into
from mujoco.mjx._src.io import get_state
from mujoco.mjx._src.io import make_data
from mujoco.mjx._src.io import put_data
from mujoco.mjx._src.io import put_model
from mujoco.mjx._src.io import set_state
from mujoco.mjx._src.io import state_size
from mujoco.mjx._src.passive import passive
from mujoco.mjx._src.ray import ray
from mujoco.mjx._src.render import render
from mujoco.mjx._src.render import render_with_segmentation
from mujoco.mjx._src.render_util import get_depth
from mujoco.mjx._src.render_util import get_rgb
from mujoco.mjx._src.render_util import get_segmentation
from mujoco.mjx._src.sensor import sensor_acc
from mujoco.mjx._src.sensor import sensor_pos
from mujoco.mjx._src.sensor import sensor_vel
from mujoco.mjx._src.smooth import camlight
from mujoco.mjx._src.smooth import com_pos
from mujoco.mjx._src.smooth import com_vel
from mujoco.mjx._src.smooth import crb
from mujoco.mjx._src.smooth import factor_m
from mujoco.mjx._src.smooth import kinematics
from mujoco.mjx._src.smooth import rne
from mujoco.mjx._src.smooth import rne_postconstraint
from mujoco.mjx._src.smooth import subtree_vel
from mujoco.mjx._src.smooth import tendon
from mujoco.mjx._src.smooth import tendon_armature
from mujoco.mjx._src.smooth import tendon_bias
from mujoco.mjx._src.smooth import transmission
from mujoco.mjx._src.solver import solve
from mujoco.mjx._src.support import apply_ft
from mujoco.mjx._src.support import full_m
from mujoco.mjx._src.support import id2name
from mujoco.mjx._src.support import is_sparse
from mujoco.mjx._src.support import jac
from mujoco.mjx._src.support import mul_m
from mujoco.mjx._src.support import name2id
from mujoco.mjx._src.support import xfrc_accumulate
from mujoco.mjx._src.test_util import benchmark
from mujoco.mjx._src.types import *
