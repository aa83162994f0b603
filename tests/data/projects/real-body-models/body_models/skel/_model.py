"""SKEL model implementation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jaxtyping import Float, Int

from body_models._base import (
    CorrectiveBasis,
    DenseCorrectiveBasis,
    ParameterSpec,
    PointRegressor,
    SkinnedModel,
    SkinningPose,
)
from body_models._common import skinning
from body_models._runtime import ArrayRuntime
from body_models.skel import _core as core
from body_models.skel import _pose as pose_utils
from body_models.skel._constants import SKEL_BODY_PRESETS, SKEL_JOINTS
from body_models.skel._io import get_model_path, load_model_data

Array = Any
SkelIdentity = core.SkelIdentity


@dataclass(frozen=True)
class SkelConfig:
    """Static SKEL behavior preserved outside array state."""

    gender: Literal["male", "female"]


class SKEL(SkinnedModel):
    """Skinned body model with anatomical articulation."""

    NUM_JOINTS = 24
    NUM_SHAPE_COEFFS = 10
    NUM_BODY_POSE_COEFFS = pose_utils.SKEL_BODY_POSE_COEFFS
    NUM_HEAD_POSE_COEFFS = pose_utils.SKEL_HEAD_POSE_COEFFS
    NUM_POSE_COEFFS = NUM_BODY_POSE_COEFFS + NUM_HEAD_POSE_COEFFS
    _COMMON_JOINTS = SKEL_JOINTS
    _SIDE_AFFIXES = ("_l", "_r")
    _POSE_LAYOUT = pose_utils.POSE_LAYOUT

    def __init__(
        self,
        *,
        model_path: Path | str | None = None,
        gender: Literal["male", "female"] = "male",
        simplify: float = 1.0,
        runtime: ArrayRuntime,
    ) -> None:
        if gender not in ("male", "female"):
            raise ValueError(f"Invalid gender: {gender!r}")
        if simplify < 1.0:
            raise ValueError("simplify must be >= 1.0")

        assets = load_model_data(get_model_path(model_path, gender), simplify=simplify)
        self._attach_runtime(runtime)
        self._config = SkelConfig(gender=gender)
        self._assets = runtime._materialize(assets)

    @property
    def gender(self) -> Literal["male", "female"]:
        return self._config.gender

    @property
    def faces(self) -> Int[Array, "F 3"]:
        return self._assets.faces

    @property
    def skeleton_faces(self) -> Int[Array, "Fs 3"]:
        return self._assets.skel_faces

    @property
    def joint_names(self) -> list[str]:
        return list(self._assets.joint_names)

    @property
    def num_vertices(self) -> int:
        return self._assets.v_template.shape[0]

    @property
    def skin_weights(self) -> Float[Array, "V 24"]:
        return self._assets.skin_weights

    @property
    def rest_vertices(self) -> Float[Array, "V 3"]:
        return self._assets.v_template

    @property
    def parents(self) -> list[int]:
        return list(self._assets.kinematic_tree.parents)

    @property
    def _corrective_basis(self) -> CorrectiveBasis:
        return DenseCorrectiveBasis(self._assets.posedirs)

    @property
    def parameter_spec(self) -> dict[str, ParameterSpec]:
        return {
            "shape": ParameterSpec((self.NUM_SHAPE_COEFFS,), "identity"),
            "body_pose": ParameterSpec((self.NUM_BODY_POSE_COEFFS,), "pose"),
            "head_pose": ParameterSpec((self.NUM_HEAD_POSE_COEFFS,), "pose"),
            "global_rotation": ParameterSpec.rotation("axis_angle", role="transform"),
            "global_translation": ParameterSpec((3,), "transform"),
        }

    def forward_vertices(
        self,
        body_pose: Float[Array, "*batch 43"],
        head_pose: Float[Array, "*batch 3"],
        *,
        shape: Float[Array, "*batch 10"] | None = None,
        identity: SkelIdentity | None = None,
        global_rotation: Float[Array, "*batch 3"] | None = None,
        global_translation: Float[Array, "*batch 3"] | None = None,
        vertex_indices: Sequence[int] | None = None,
    ) -> Float[Array, "*batch V 3"]:
        """Compute posed SKEL vertices."""
        xp = self._runtime.xp
        self._validate_identity_arguments(identity, shape=shape)
        if identity is None:
            identity = self.prepare_identity(*self._resolve_identity_coefficients(body_pose.shape[:-1], shape=shape))

        pose = self.prepare_pose(body_pose, head_pose, identity=identity)
        vertices = self._runtime._skin_vertices(
            self.apply_pose_correctives(identity=identity, pose=pose),
            pose["skinning_transforms"],
            skinning=self._assets.compact_skinning,
            vertex_indices=vertex_indices,
        )
        return skinning.apply_global_transform(
            vertices,
            global_rotation,
            global_translation,
            xp=xp,
        )

    def forward_skeleton(
        self,
        body_pose: Float[Array, "*batch 43"],
        head_pose: Float[Array, "*batch 3"],
        *,
        shape: Float[Array, "*batch 10"] | None = None,
        identity: SkelIdentity | None = None,
        global_rotation: Float[Array, "*batch 3"] | None = None,
        global_translation: Float[Array, "*batch 3"] | None = None,
        joint_indices: Sequence[int] | None = None,
    ) -> Float[Array, "*batch 24 4 4"]:
        """Compute posed SKEL joint transforms."""
        xp = self._runtime.xp
        self._validate_identity_arguments(identity, shape=shape)
        if identity is None:
            resolved = self._resolve_identity_coefficients(body_pose.shape[:-1], shape=shape)
            skeleton_identity = self._prepare_skeleton_identity(*resolved)
        else:
            skeleton_identity = identity

        packed_pose = pose_utils.pack_pose(xp, body_pose, head_pose)
        skeleton = core.prepare_skeleton(
            runtime=self._runtime,
            all_axes=self._assets.all_axes,
            rotation_indices=self._assets.rotation_indices,
            apose_R=self._assets.apose_R,
            apose_t=self._assets.apose_t,
            per_joint_rot=self._assets.per_joint_rot,
            child=self._assets.child,
            fixed_orientation_joints=self._assets.fixed_orientation_joints,
            scapula_r_axes=self._assets.scapula_r_axes,
            scapula_l_axes=self._assets.scapula_l_axes,
            spine_axes=self._assets.spine_axes,
            tree=self._assets.kinematic_tree,
            pose=packed_pose,
            local_joint_offsets=skeleton_identity["local_joint_offsets"],
            rest_joints=skeleton_identity["rest_joints"],
            joint_indices=joint_indices,
        )
        return skinning.transform_skeleton(
            skeleton,
            global_rotation,
            global_translation,
            xp=xp,
        )

    def forward_points(
        self,
        body_pose: Float[Array, "*batch 43"],
        head_pose: Float[Array, "*batch 3"],
        *,
        point_regressor: PointRegressor,
        shape: Float[Array, "*batch 10"] | None = None,
        identity: SkelIdentity | None = None,
        global_rotation: Float[Array, "*batch 3"] | None = None,
        global_translation: Float[Array, "*batch 3"] | None = None,
    ) -> Float[Array, "*batch K 3"]:
        """Compute positions defined by a prepared vertex mapping."""
        self._validate_identity_arguments(identity, shape=shape)
        if identity is None:
            identity = self.prepare_identity(*self._resolve_identity_coefficients(body_pose.shape[:-1], shape=shape))

        pose = self.prepare_pose(body_pose, head_pose, identity=identity)
        return self._deform_points(point_regressor, identity, pose, global_rotation, global_translation)

    def forward_links(
        self,
        body_pose: Float[Array, "*batch 43"],
        head_pose: Float[Array, "*batch 3"],
        *,
        shape: Float[Array, "*batch 10"] | None = None,
        identity: SkelIdentity | None = None,
        global_rotation: Float[Array, "*batch 3"] | None = None,
        global_translation: Float[Array, "*batch 3"] | None = None,
    ) -> Float[Array, "*batch 24 4 4"]:
        """Alias the SKEL joint transforms as anatomical link transforms."""
        return self.forward_skeleton(
            body_pose,
            head_pose,
            global_rotation=global_rotation,
            global_translation=global_translation,
            shape=shape,
            identity=identity,
        )

    def prepare_identity(
        self,
        shape: Float[Array, "*batch 10"],
    ) -> SkelIdentity:
        """Precompute shape-dependent state for repeated forward passes."""
        return core.prepare_identity(
            self._assets.v_template,
            self._assets.shapedirs,
            self._assets.j_template,
            self._assets.j_shapedirs,
            self._assets.parent,
            shape,
            xp=self._runtime.xp,
        )

    def prepare_pose(
        self,
        body_pose: Float[Array, "*batch 43"],
        head_pose: Float[Array, "*batch 3"],
        *,
        identity: SkelIdentity,
    ) -> SkinningPose:
        """Precompute pose-dependent state for repeated forward passes."""
        packed_pose = pose_utils.pack_pose(self._runtime.xp, body_pose, head_pose)
        return core.prepare_pose(
            runtime=self._runtime,
            all_axes=self._assets.all_axes,
            rotation_indices=self._assets.rotation_indices,
            apose_R=self._assets.apose_R,
            apose_t=self._assets.apose_t,
            per_joint_rot=self._assets.per_joint_rot,
            child=self._assets.child,
            fixed_orientation_joints=self._assets.fixed_orientation_joints,
            scapula_r_axes=self._assets.scapula_r_axes,
            scapula_l_axes=self._assets.scapula_l_axes,
            spine_axes=self._assets.spine_axes,
            tree=self._assets.kinematic_tree,
            num_joints_smpl=self._assets.num_joints_smpl,
            pose=packed_pose,
            local_joint_offsets=identity["local_joint_offsets"],
            rest_joints=identity["rest_joints"],
        )

    def _prepare_skeleton_identity(
        self,
        shape: Float[Array, "*batch 10"],
    ) -> core.SkelSkeletonIdentity:
        return core.prepare_skeleton_identity(
            self._assets.j_template,
            self._assets.j_shapedirs,
            self._assets.parent,
            shape,
            xp=self._runtime.xp,
        )

    def get_tpose(
        self,
        *,
        batch_dims: tuple[int, ...] = (),
        dtype: Any | None = None,
    ) -> dict[str, Float[Array, "..."]]:
        """Return the SKEL T-pose."""
        return self.get_rest_pose(batch_dims=batch_dims, dtype=dtype)

    def get_apose(
        self,
        *,
        batch_dims: tuple[int, ...] = (),
        dtype: Any | None = None,
    ) -> dict[str, Float[Array, "..."]]:
        """Return the SKEL A-pose."""
        params = self.get_rest_pose(batch_dims=batch_dims, dtype=dtype)
        pose = self._runtime.asarray(SKEL_BODY_PRESETS["a_pose"], like=params["body_pose"])
        pose = self._runtime.xp.broadcast_to(pose, (*batch_dims, *pose.shape))
        params["body_pose"], params["head_pose"] = pose_utils.unpack_pose(self._runtime.xp, pose)
        return params


__all__ = ["SKEL", "SkelConfig"]
