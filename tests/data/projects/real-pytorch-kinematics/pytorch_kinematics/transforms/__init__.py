# Copyright (c) Facebook, Inc. and its affiliates. All rights reserved.

from pytorch_kinematics.transforms.perturbation import sample_perturbations
from .rotation_conversions import (
    axis_angle_to_quaternion,
    euler_angles_to_matrix,
    matrix_to_axis_angle,
    matrix_to_euler_angles,
    matrix_to_quaternion,
    matrix_to_rotation_6d,
    quaternion_apply,
    quaternion_invert,
    quaternion_multiply,
    quaternion_raw_multiply,
    quaternion_to_matrix,
    quaternion_from_euler,
    quaternion_to_axis_angle,
    random_quaternions,
    random_rotation,
    random_rotations,
    rotation_6d_to_matrix,
    standardize_quaternion,
    axis_and_angle_to_matrix_33,
    axis_and_d_to_pris_matrix,
    wxyz_to_xyzw,
    xyzw_to_wxyz,
    matrix44_to_se3_9d,
    se3_9d_to_matrix44,
    pos_rot_to_matrix,
    matrix_to_pos_rot,
)
from .so3 import (
    so3_exp_map,
    so3_log_map,
    so3_relative_angle,
    so3_rotation_angle,
)
from .transform3d import Rotate, RotateAxisAngle, Scale, Transform3d, Translate
from pytorch_kinematics.transforms.math import (
    quaternion_angular_distance,
    acos_linear_extrapolation,
    quaternion_close,
    quaternion_slerp,
)

__all__ = [k for k in globals().keys() if not k.startswith("_")]
