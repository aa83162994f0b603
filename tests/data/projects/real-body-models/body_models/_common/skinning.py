"""Backend-agnostic linear blend skinning operations."""

from dataclasses import dataclass
from typing import Any, Protocol

from jaxtyping import Float, Int
from nanomanifold import SO3

from body_models._common import ops
from body_models._common.kinematics import affine_transforms
from body_models._rotations import RotationType

Array = Any


@dataclass(frozen=True)
class CompactSkinning:
    """Compact per-vertex skinning weights."""

    joint_indices: Int[Array, "V K"]
    joint_weights: Float[Array, "V K"]


class CompactSkinningState(Protocol):
    """Materialized compact skinning arrays."""

    joint_indices: Int[Array, "V K"]
    joint_weights: Float[Array, "V K"]


def linear_blend_skinning(
    vertices: Float[Array, "*batch V 3"],
    transforms: Float[Array, "*batch J 4 4"],
    weights: Float[Array, "V J"],
    *,
    xp: Any,
) -> Float[Array, "*batch V 3"]:
    """Blend joint transforms and apply them to vertices."""
    affine = transforms[..., :3, :].reshape(*transforms.shape[:-3], transforms.shape[-3], 12)
    blended = (weights @ affine).reshape(*transforms.shape[:-3], weights.shape[0], 3, 4)
    rotated = xp.squeeze(blended[..., :3] @ vertices[..., None], axis=-1)
    return rotated + blended[..., 3]


def compact_linear_blend_skinning(
    vertices: Float[Array, "*batch V 3"],
    transforms: Float[Array, "*batch J 4 4"],
    *,
    joint_indices: Int[Array, "V K"],
    joint_weights: Float[Array, "V K"],
    xp: Any,
) -> Float[Array, "*batch V 3"]:
    """Apply linear blend skinning from compact per-vertex joint weights."""
    blended = ops.zeros_as(
        vertices,
        shape=(*vertices.shape[:-1], 3, 4),
        xp=xp,
    )
    affine = transforms[..., :3, :]
    for slot in range(joint_indices.shape[1]):
        indices = joint_indices[:, slot]
        valid = indices >= 0
        safe_indices = xp.maximum(indices, xp.zeros_like(indices))
        weights = joint_weights[:, slot] * valid
        blended = blended + affine[..., safe_indices, :, :] * weights[:, None, None]

    rotations = blended[..., :3]
    translations = blended[..., 3]
    return xp.einsum("...vij,...vj->...vi", rotations, vertices) + translations


def bind_relative_transforms(
    skeleton_transforms: Float[Array, "*batch J 4 4"],
    rest_joints: Float[Array, "*batch J 3"],
    *,
    xp: Any,
) -> Float[Array, "*batch J 4 4"]:
    """Convert world transforms to bind-relative skinning transforms."""
    rotations = skeleton_transforms[..., :3, :3]
    translations = skeleton_transforms[..., :3, 3]
    bind_translations = translations - xp.squeeze(rotations @ rest_joints[..., None], axis=-1)
    return ops.at_set(
        skeleton_transforms,
        (..., slice(None, 3), 3),
        bind_translations,
        xp=xp,
    )


def apply_global_transform(
    points: Float[Array, "*batch N 3"],
    rotation: Float[Array, "*batch N"] | Float[Array, "*batch 3 3"] | None,
    translation: Float[Array, "*batch 3"] | None,
    rotation_type: RotationType = "axis_angle",
    *,
    xp: Any,
) -> Float[Array, "*batch N 3"]:
    """Apply an optional global rotation and translation to points."""
    if rotation is None and translation is None:
        return points
    if rotation is not None:
        rotation_matrix = SO3.convert(rotation, src=rotation_type, dst="rotmat", xp=xp)
        points = (rotation_matrix @ points.mT).mT
    if translation is not None:
        points = points + translation[..., None, :]
    return points


def transform_skeleton(
    transforms: Float[Array, "*batch J 4 4"],
    rotation: Float[Array, "*batch N"] | Float[Array, "*batch 3 3"] | None,
    translation: Float[Array, "*batch 3"] | None,
    rotation_type: RotationType = "axis_angle",
    *,
    xp: Any,
) -> Float[Array, "*batch J 4 4"]:
    """Apply an optional global transform to a skeleton."""
    if translation is not None and (translation.ndim < 1 or translation.shape[-1] != 3):
        raise ValueError("translation must have shape [..., 3]")

    if rotation is None:
        if translation is None:
            return transforms
        positions = transforms[..., :3, 3] + translation[..., None, :]
        return ops.at_set(transforms, (..., slice(None, 3), 3), positions, xp=xp)

    rotations = transforms[..., :3, :3]
    positions = transforms[..., :3, 3]
    global_rotation = SO3.convert(rotation, src=rotation_type, dst="rotmat", xp=xp)
    positions = (global_rotation @ positions.mT).mT
    rotations = global_rotation[..., None, :, :] @ rotations
    if translation is not None:
        positions = positions + translation[..., None, :]

    return affine_transforms(rotations, positions, xp=xp)
