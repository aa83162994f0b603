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
"""Convex collisions."""

import torch
import torch.nn.functional as F

from mujoco_torch._src import math

# pylint: disable=g-importing-member
from mujoco_torch._src.collision_types import Collision as Contact
from mujoco_torch._src.collision_types import GeomInfo
from mujoco_torch._src.diff_config import get_diff_config
from mujoco_torch._src.math import matmul_unroll

# pylint: enable=g-importing-member


def _vmap_select(tensor: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """Selects a single element along dim 0 using a scalar index, vmap-compatible."""
    if tensor.ndim == 1:
        return tensor.gather(0, idx.unsqueeze(0)).squeeze(0)
    idx_expanded = idx.view(1, *([1] * (tensor.ndim - 1))).expand(1, *tensor.shape[1:])
    return tensor.gather(0, idx_expanded).squeeze(0)


def _closest_segment_point_plane(
    a: torch.Tensor, b: torch.Tensor, p0: torch.Tensor, plane_normal: torch.Tensor
) -> torch.Tensor:
    """Gets the closest point between a line segment and a plane.

    Args:
      a: first line segment point
      b: second line segment point
      p0: point on plane
      plane_normal: plane normal

    Returns:
      closest point between the line segment and the plane
    """
    # Parametrize a line segment as S(t) = a + t * (b - a), plug it into the plane
    # equation dot(n, S(t)) - d = 0, then solve for t to get the line-plane
    # intersection. We then clip t to be in [0, 1] to be on the line segment.
    n = plane_normal
    d = torch.sum(p0 * n)  # shortest distance from origin to plane
    denom = torch.sum(n * (b - a))
    t = (d - torch.sum(n * a)) / (denom + 1e-6 * (denom == 0.0))
    t = torch.clamp(t, 0, 1)
    segment_point = a + t * (b - a)

    return segment_point


def _closest_triangle_point(p0: torch.Tensor, p1: torch.Tensor, p2: torch.Tensor, pt: torch.Tensor) -> torch.Tensor:
    """Gets the closest point between a triangle and a point in space.

    Args:
      p0: triangle point
      p1: triangle point
      p2: triangle point
      pt: point to test

    Returns:
      closest point on the triangle w.r.t point pt
    """
    # Parametrize the triangle s.t. a point inside the triangle is
    # Q = p0 + u * e0 + v * e1, when 0 <= u <= 1, 0 <= v <= 1, and
    # 0 <= u + v <= 1. Let e0 = (p1 - p0) and e1 = (p2 - p0).
    # We analytically minimize the distance between the point pt and Q.
    e0 = p1 - p0
    e1 = p2 - p0
    a = (e0 * e0).sum(-1)
    b = (e0 * e1).sum(-1)
    c = (e1 * e1).sum(-1)
    d = pt - p0
    # The determinant is 0 only if the angle between e1 and e0 is 0
    # (i.e. the triangle has overlapping lines).
    det = a * c - b * b
    e0d = (e0 * d).sum(-1)
    e1d = (e1 * d).sum(-1)
    u = (c * e0d - b * e1d) / det
    v = (-b * e0d + a * e1d) / det
    inside = (0 <= u) & (u <= 1) & (0 <= v) & (v <= 1) & (u + v <= 1)
    closest_p = p0 + u * e0 + v * e1
    diff = closest_p - pt
    d0 = (diff * diff).sum(-1)

    # If the closest point is outside the triangle, it must be on an edge, so we
    # check each triangle edge for a closest point to the point pt.
    closest_p1, d1 = math.closest_segment_point_and_dist(p0, p1, pt)
    closest_p = torch.where((d0 < d1) & inside, closest_p, closest_p1)
    min_d = torch.where((d0 < d1) & inside, d0, d1)

    closest_p2, d2 = math.closest_segment_point_and_dist(p1, p2, pt)
    closest_p = torch.where(d2 < min_d, closest_p2, closest_p)
    min_d = torch.minimum(min_d, d2)

    closest_p3, d3 = math.closest_segment_point_and_dist(p2, p0, pt)
    closest_p = torch.where(d3 < min_d, closest_p3, closest_p)

    return closest_p


def _closest_segment_triangle_points(
    a: torch.Tensor,
    b: torch.Tensor,
    p0: torch.Tensor,
    p1: torch.Tensor,
    p2: torch.Tensor,
    triangle_normal: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Gets the closest points between a line segment and triangle.

    Args:
      a: first line segment point
      b: second line segment point
      p0: triangle point
      p1: triangle point
      p2: triangle point
      triangle_normal: normal of triangle

    Returns:
      closest point on the triangle w.r.t the line segment
    """
    # The closest triangle point is either on the edge or within the triangle.
    # First check triangle edges for the closest point.
    # TODO(robotics-simulation): consider vmapping over closest point functions
    seg_pt1, tri_pt1 = math.closest_segment_to_segment_points(a, b, p0, p1)
    diff1 = seg_pt1 - tri_pt1
    d1 = (diff1 * diff1).sum(-1)
    seg_pt2, tri_pt2 = math.closest_segment_to_segment_points(a, b, p1, p2)
    diff2 = seg_pt2 - tri_pt2
    d2 = (diff2 * diff2).sum(-1)
    seg_pt3, tri_pt3 = math.closest_segment_to_segment_points(a, b, p0, p2)
    diff3 = seg_pt3 - tri_pt3
    d3 = (diff3 * diff3).sum(-1)

    # Next, handle the case where the closest triangle point is inside the
    # triangle. Either the line segment intersects the triangle or a segment
    # endpoint is closest to a point inside the triangle.
    seg_pt4 = _closest_segment_point_plane(a, b, p0, triangle_normal)
    tri_pt4 = _closest_triangle_point(p0, p1, p2, seg_pt4)
    diff4 = seg_pt4 - tri_pt4
    d4 = (diff4 * diff4).sum(-1)

    # Get the point with minimum distance from the line segment point to the
    # triangle point.
    cfg = get_diff_config()
    distances = torch.stack([d1, d2, d3, d4])
    seg_pts = torch.stack([seg_pt1, seg_pt2, seg_pt3, seg_pt4])
    tri_pts = torch.stack([tri_pt1, tri_pt2, tri_pt3, tri_pt4])

    if cfg.smooth_collisions:
        seg_pt = math.softmin_weighted(distances, seg_pts, cfg.smooth_sharpness)
        tri_pt = math.softmin_weighted(distances, tri_pts, cfg.smooth_sharpness)
    else:
        distance = distances.unsqueeze(0)
        min_dist = torch.amin(distance)
        mask = (distance == min_dist).T
        seg_pt = (seg_pts * mask).sum(dim=0) / mask.sum()
        tri_pt = (tri_pts * mask).sum(dim=0) / mask.sum()

    return seg_pt, tri_pt


def _gather_idx(poly: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """Gathers a single row from poly using a scalar index, vmap-compatible."""
    return _vmap_select(poly, idx)


def _manifold_points(poly: torch.Tensor, poly_mask: torch.Tensor, poly_norm: torch.Tensor) -> torch.Tensor:
    """Chooses four points on the polygon with approximately maximal area."""
    cfg = get_diff_config()
    dist_mask = torch.where(
        poly_mask,
        torch.zeros_like(poly_mask, dtype=poly.dtype),
        torch.full_like(poly_mask, -1e6, dtype=poly.dtype),
    )

    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        weights_a = torch.softmax(s * dist_mask, dim=0)
        a = (weights_a.unsqueeze(-1) * poly).sum(dim=0)

        scores_b = ((a - poly) ** 2).sum(dim=1) + dist_mask
        weights_b = torch.softmax(s * scores_b, dim=0)
        b = (weights_b.unsqueeze(-1) * poly).sum(dim=0)

        ab = math.cross(poly_norm, a - b)
        ap = a - poly
        scores_c = torch.abs((ap * ab).sum(-1)) + dist_mask
        weights_c = torch.softmax(s * scores_c, dim=0)
        c = (weights_c.unsqueeze(-1) * poly).sum(dim=0)

        ac = math.cross(poly_norm, a - c)
        bc = math.cross(poly_norm, b - c)
        bp = b - poly
        dist_bp = torch.abs((bp * bc).sum(-1)) + dist_mask
        dist_ap = torch.abs((ap * ac).sum(-1)) + dist_mask
        scores_d = torch.maximum(dist_bp, dist_ap)
        weights_d = torch.softmax(s * scores_d, dim=0)
        d = (weights_d.unsqueeze(-1) * poly).sum(dim=0)

        return torch.stack([a, b, c, d])

    a_idx = torch.argmax(dist_mask)
    a = _gather_idx(poly, a_idx)
    # choose point b furthest from a
    b_idx = (((a - poly) ** 2).sum(dim=1) + dist_mask).argmax()
    b = _gather_idx(poly, b_idx)
    # choose point c furthest along the axis orthogonal to (a-b)
    ab = math.cross(poly_norm, a - b)
    ap = a - poly
    c_idx = (torch.abs((ap * ab).sum(-1)) + dist_mask).argmax()
    c = _gather_idx(poly, c_idx)
    # choose point d furthest from the other two triangle edges
    ac = math.cross(poly_norm, a - c)
    bc = math.cross(poly_norm, b - c)
    bp = b - poly
    dist_bp = torch.abs((bp * bc).sum(-1)) + dist_mask
    dist_ap = torch.abs((ap * ac).sum(-1)) + dist_mask
    d_idx = torch.cat([dist_bp, dist_ap]).argmax() % poly.shape[0]
    return torch.stack([a_idx, b_idx, c_idx, d_idx])


def _project_pt_onto_plane(pt: torch.Tensor, plane_pt: torch.Tensor, plane_normal: torch.Tensor) -> torch.Tensor:
    """Projects a point onto a plane along the plane normal."""
    dist = ((pt - plane_pt) * plane_normal).sum(-1)
    return pt - dist * plane_normal


def _project_poly_onto_plane(poly: torch.Tensor, plane_pt: torch.Tensor, plane_normal: torch.Tensor) -> torch.Tensor:
    """Projects a polygon onto a plane using the plane normal."""
    return torch.vmap(_project_pt_onto_plane, (0, None, None))(poly, plane_pt, math.normalize(plane_normal))


def _project_poly_onto_poly_plane(
    poly1: torch.Tensor, norm1: torch.Tensor, poly2: torch.Tensor, norm2: torch.Tensor
) -> torch.Tensor:
    """Projects poly1 onto the poly2 plane along poly1's normal."""
    d = (poly2[0] * norm2).sum(-1)
    denom = (norm1 * norm2).sum(-1)
    t = (d - (poly1 * norm2).sum(-1)) / (denom + 1e-6 * (denom == 0.0))
    new_poly = poly1 + t.reshape(-1, 1) * norm1
    return new_poly


def _point_in_front_of_plane(plane_pt: torch.Tensor, plane_normal: torch.Tensor, pt: torch.Tensor) -> torch.Tensor:
    """Checks if a point is strictly in front of a plane."""
    return ((pt - plane_pt) * plane_normal).sum(-1) > 1e-6


def _clip_edge_to_planes(
    edge_p0: torch.Tensor,
    edge_p1: torch.Tensor,
    plane_pts: torch.Tensor,
    plane_normals: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Clips an edge against side planes.

    We return two clipped points, and a mask to include the new edge or not.

    Args:
      edge_p0: the first point on the edge
      edge_p1: the second point on the edge
      plane_pts: side plane points
      plane_normals: side plane normals

    Returns:
      new_ps: new edge points that are clipped against side planes
      mask: a boolean mask, True if an edge point is a valid clipped point and
      False otherwise
    """
    p0, p1 = edge_p0, edge_p1
    p0_in_front = ((p0 - plane_pts) * plane_normals).sum(-1) > 1e-6
    p1_in_front = ((p1 - plane_pts) * plane_normals).sum(-1) > 1e-6

    # Get candidate clipped points along line segment (p0, p1) by clipping against
    # all clipping planes.
    candidate_clipped_ps = torch.vmap(_closest_segment_point_plane, (None, None, 0, 0))(
        p0, p1, plane_pts, plane_normals
    )

    cfg = get_diff_config()

    def clip_edge_point(p0, p1, p0_in_front, clipped_ps):
        @torch.vmap
        def choose_edge_point(in_front, clipped_p):
            return torch.where(in_front, clipped_p, p0)

        new_edge_ps = choose_edge_point(p0_in_front, clipped_ps)

        dists = ((new_edge_ps - p0) * (p1 - p0)).sum(-1)
        if cfg.smooth_collisions:
            weights = torch.softmax(cfg.smooth_sharpness * dists, dim=0)
            new_edge_p = (weights.unsqueeze(-1) * new_edge_ps).sum(dim=0)
        else:
            new_edge_p = _vmap_select(new_edge_ps, torch.argmax(dists))
        return new_edge_p

    # Clip each edge point.
    new_p0 = clip_edge_point(p0, p1, p0_in_front, candidate_clipped_ps)
    new_p1 = clip_edge_point(p1, p0, p1_in_front, candidate_clipped_ps)
    clipped_pts = torch.stack([new_p0, new_p1])

    # Keep the original points if both points are in front of any of the clipping
    # planes, rather than creating a new clipped edge. If the entire subject edge
    # is in front of any clipping plane, we need to grab an edge from the clipping
    # polygon instead.
    both_in_front = p0_in_front & p1_in_front
    mask = ~torch.any(both_in_front)
    new_ps = torch.where(mask, clipped_pts, torch.stack([p0, p1]))
    # Mask out crossing clipped edge points.
    mask = torch.where(((p0 - p1) * (new_ps[0] - new_ps[1])).sum(-1) < 0, False, mask)
    return new_ps, torch.stack([mask, mask])


def _clip(
    clipping_poly: torch.Tensor,
    subject_poly: torch.Tensor,
    clipping_normal: torch.Tensor,
    subject_normal: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Clips a subject polygon against a clipping polygon.

    A parallelized clipping algorithm for convex polygons. The result is a set of
    vertices on the clipped subject polygon in the subject polygon plane.

    Args:
      clipping_poly: the polygon that we use to clip the subject polygon against
      subject_poly: the polygon that gets clipped
      clipping_normal: normal of the clipping polygon
      subject_normal: normal of the subject polygon

    Returns:
      clipped_pts: points on the clipped polygon
      mask: True if a point is in the clipping polygon, False otherwise
    """
    # Get clipping edge points, edge planes, and edge normals.
    clipping_p0 = torch.roll(clipping_poly, 1, dims=0)
    clipping_plane_pts = clipping_p0
    clipping_p1 = clipping_poly
    clipping_plane_normals = torch.vmap(math.cross, (0, None))(
        clipping_p1 - clipping_p0,
        clipping_normal,
    )

    # Get subject edge points, edge planes, and edge normals.
    subject_edge_p0 = torch.roll(subject_poly, 1, dims=0)
    subject_plane_pts = subject_edge_p0
    subject_edge_p1 = subject_poly
    subject_plane_normals = torch.vmap(math.cross, (0, None))(
        subject_edge_p1 - subject_edge_p0,
        subject_normal,
    )

    # Clip all edges of the subject poly against clipping side planes.
    clipped_edges0, masks0 = torch.vmap(_clip_edge_to_planes, (0, 0, None, None))(
        subject_edge_p0,
        subject_edge_p1,
        clipping_plane_pts,
        clipping_plane_normals,
    )

    # Project the clipping poly onto the subject plane.
    clipping_p0_s = _project_poly_onto_poly_plane(clipping_p0, clipping_normal, subject_poly, subject_normal)
    clipping_p1_s = _project_poly_onto_poly_plane(clipping_p1, clipping_normal, subject_poly, subject_normal)

    # Clip all edges of the clipping poly against subject planes.
    clipped_edges1, masks1 = torch.vmap(_clip_edge_to_planes, (0, 0, None, None))(
        clipping_p0_s, clipping_p1_s, subject_plane_pts, subject_plane_normals
    )

    # Merge the points and reshape.
    clipped_edges = torch.cat([clipped_edges0, clipped_edges1])
    masks = torch.cat([masks0, masks1])
    clipped_points = clipped_edges.reshape((-1, 3))
    mask = masks.reshape(-1)

    return clipped_points, mask


def _create_contact_manifold(
    clipping_poly: torch.Tensor,
    subject_poly: torch.Tensor,
    clipping_norm: torch.Tensor,
    subject_norm: torch.Tensor,
    sep_axis: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Creates a contact manifold between two convex polygons.

    The polygon faces are expected to have a counter clockwise winding order so
    that clipping plane normals point away from the polygon center.

    Args:
      clipping_poly: the reference polygon to clip the contact against.
      subject_poly: the subject polygon to clip contacts onto.
      clipping_norm: the clipping polygon normal.
      subject_norm: the subject polygon normal.
      sep_axis: the separating axis

    Returns:
      tuple of dist, pos, and normal
    """
    cfg = get_diff_config()
    # Clip the subject (incident) face onto the clipping (reference) face.
    # The incident points are clipped points on the subject polygon.
    poly_incident, mask = _clip(clipping_poly, subject_poly, clipping_norm, subject_norm)
    # The reference points are clipped points on the clipping polygon.
    poly_ref = _project_poly_onto_plane(poly_incident, clipping_poly[0], clipping_norm)
    behind_clipping_plane = _point_in_front_of_plane(clipping_poly[0], -clipping_norm, poly_incident)
    mask = mask & behind_clipping_plane

    # Choose four contact points.
    best = _manifold_points(poly_ref, mask, clipping_norm)

    if cfg.smooth_collisions:
        contact_pts = best
        s = cfg.smooth_sharpness
        mask_f = torch.where(
            mask, torch.ones_like(mask, dtype=poly_ref.dtype), torch.zeros_like(mask, dtype=poly_ref.dtype)
        )
        weights = torch.softmax(s * mask_f, dim=0)
        avg_penetration_dir = (weights.unsqueeze(-1) * (poly_incident - poly_ref)).sum(dim=0)
        penetration = (avg_penetration_dir * (-clipping_norm)).sum(-1)
        dist = -penetration.unsqueeze(0).expand(4)
        pos = contact_pts
    else:
        contact_pts = _vmap_take(poly_ref, best)
        mask_pts = _vmap_take_1d(mask, best)
        penetration_dir = _vmap_take(poly_incident, best) - contact_pts
        penetration = (penetration_dir * (-clipping_norm)).sum(-1)
        dist = torch.where(mask_pts, -penetration, torch.ones_like(penetration))
        pos = contact_pts

    normal = -sep_axis.unsqueeze(0).expand(4, -1)
    return dist, pos, normal


def _vmap_take(tensor: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    """vmap-compatible take along dim 0 for 2D tensor with 1D indices."""
    # indices: (K,), tensor: (N, D) -> result: (K, D)
    idx = indices.unsqueeze(-1).expand(-1, tensor.shape[-1])
    return torch.gather(tensor, 0, idx)


def _vmap_take_1d(tensor: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    """vmap-compatible take along dim 0 for 1D tensor with 1D indices."""
    return torch.gather(tensor, 0, indices)


def _sat_hull_hull(
    faces_a: torch.Tensor,
    faces_b: torch.Tensor,
    vertices_a: torch.Tensor,
    vertices_b: torch.Tensor,
    normals_a: torch.Tensor,
    normals_b: torch.Tensor,
    unique_edges_a: torch.Tensor,
    unique_edges_b: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Runs the Separating Axis Test for a pair of hulls.

    Given two convex hulls, the Separating Axis Test finds a separating axis
    between all edge pairs and face pairs. Edge pairs create a single contact
    point and face pairs create a contact manifold (up to four contact points).
    We return both the edge and face contacts. Valid contacts can be checked with
    dist < 0. Resulting edge contacts should be preferred over face contacts.

    Args:
      faces_a: An ndarray of hull A's polygon faces.
      faces_b: An ndarray of hull B's polygon faces.
      vertices_a: Vertices for hull A.
      vertices_b: Vertices for hull B.
      normals_a: Normal vectors for hull A's polygon faces.
      normals_b: Normal vectors for hull B's polygon faces.
      unique_edges_a: Unique edges for hull A.
      unique_edges_b: Unique edges for hull B.

    Returns:
      tuple of dist, pos, and normal
    """
    # get the separating axes
    edge_dir_a = unique_edges_a[:, 0] - unique_edges_a[:, 1]
    edge_dir_b = unique_edges_b[:, 0] - unique_edges_b[:, 1]
    edge_dir_a_r = torch.tile(edge_dir_a, dims=(unique_edges_b.shape[0], 1))
    edge_dir_b_r = edge_dir_b.repeat_interleave(unique_edges_a.shape[0], dim=0)
    edge_edge_axes = torch.vmap(math.cross)(edge_dir_a_r, edge_dir_b_r)
    edge_edge_axes = torch.vmap(lambda x: math.normalize(x))(edge_edge_axes)

    axes = torch.cat([normals_a, normals_b, edge_edge_axes])

    # for each separating axis, get the support
    @torch.vmap
    def get_support(axis):
        support_a = (axis * vertices_a).sum(-1)
        support_b = (axis * vertices_b).sum(-1)
        dist1 = support_a.max() - support_b.min()
        dist2 = support_b.max() - support_a.min()
        sign = torch.where(dist1 > dist2, -1, 1)
        dist = torch.minimum(dist1, dist2)
        dist = torch.where(
            ~torch.all(axis == 0.0), dist, torch.full((), 1e6, dtype=dist.dtype, device=dist.device)
        )  # degenerate axis
        return dist, sign

    support, sign = get_support(axes)

    cfg = get_diff_config()

    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        weights_axis = torch.softmax(-s * support, dim=0)
        best_axis = (weights_axis.unsqueeze(-1) * axes).sum(dim=0)
        best_sign = (weights_axis * sign).sum(dim=0)
        n_face_axes = normals_a.shape[0] + normals_b.shape[0]
        edge_mask = torch.arange(axes.shape[0], device=axes.device) >= n_face_axes
        is_edge_contact = (weights_axis * edge_mask.float()).sum() > 0.5
    else:
        best_idx = torch.argmin(support)
        best_sign = _vmap_select(sign, best_idx)
        best_axis = _vmap_select(axes, best_idx)
        is_edge_contact = best_idx >= (normals_a.shape[0] + normals_b.shape[0])

    # get the (reference) face most aligned with the separating axis
    dist_a = (best_axis * normals_a).sum(-1)
    dist_b = (best_axis * normals_b).sum(-1)

    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        wa_max = torch.softmax(s * dist_a, dim=0)
        wb_max = torch.softmax(s * dist_b, dim=0)
        wa_min = torch.softmax(-s * dist_a, dim=0)
        wb_min = torch.softmax(-s * dist_b, dim=0)

        face_a_max = (wa_max.unsqueeze(-1).unsqueeze(-1) * faces_a).sum(dim=0)
        face_b_max = (wb_max.unsqueeze(-1).unsqueeze(-1) * faces_b).sum(dim=0)
        norm_a_max = (wa_max.unsqueeze(-1) * normals_a).sum(dim=0)
        norm_b_max = (wb_max.unsqueeze(-1) * normals_b).sum(dim=0)
        face_a_min = (wa_min.unsqueeze(-1).unsqueeze(-1) * faces_a).sum(dim=0)
        face_b_min = (wb_min.unsqueeze(-1).unsqueeze(-1) * faces_b).sum(dim=0)
        norm_a_min = (wa_min.unsqueeze(-1) * normals_a).sum(dim=0)
        norm_b_min = (wb_min.unsqueeze(-1) * normals_b).sum(dim=0)

        w_sign = torch.sigmoid(s * best_sign)
        ref_face = math.soft_where(w_sign.unsqueeze(-1), face_a_max, face_b_max)
        ref_face_norm = math.soft_where(w_sign, norm_a_max, norm_b_max)
        incident_face = math.soft_where(w_sign.unsqueeze(-1), face_b_min, face_a_min)
        incident_face_norm = math.soft_where(w_sign, norm_b_min, norm_a_min)
    else:
        a_max = dist_a.argmax()
        b_max = dist_b.argmax()
        a_min = dist_a.argmin()
        b_min = dist_b.argmin()

        ref_face = torch.where(best_sign > 0, _vmap_select(faces_a, a_max), _vmap_select(faces_b, b_max))
        ref_face_norm = torch.where(best_sign > 0, _vmap_select(normals_a, a_max), _vmap_select(normals_b, b_max))
        incident_face = torch.where(best_sign > 0, _vmap_select(faces_b, b_min), _vmap_select(faces_a, a_min))
        incident_face_norm = torch.where(best_sign > 0, _vmap_select(normals_b, b_min), _vmap_select(normals_a, a_min))

    dist, pos, normal = _create_contact_manifold(
        ref_face,
        incident_face,
        ref_face_norm,
        incident_face_norm,
        -best_sign * best_axis,
    )

    # For edge contacts, we use the clipped face point, mainly for performance
    # reasons. For small penetration, the clipped face point is roughly the edge
    # contact point.
    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        dist_at_idx = math.softmin_weighted(dist, dist.unsqueeze(-1), s).squeeze(-1)
        pos_at_idx = math.softmin_weighted(dist, pos, s)
    else:
        idx = dist.argmin()
        dist_at_idx = _vmap_select(dist, idx)
        pos_at_idx = _vmap_select(pos, idx)
    dist = torch.where(
        is_edge_contact,
        torch.stack(
            [dist_at_idx, torch.ones_like(dist_at_idx), torch.ones_like(dist_at_idx), torch.ones_like(dist_at_idx)]
        ),
        dist,
    )
    pos = torch.where(is_edge_contact, pos_at_idx.unsqueeze(0).expand(4, -1), pos)

    return dist, pos, normal


def plane_convex(plane: GeomInfo, convex: GeomInfo) -> Contact:
    """Calculates contacts between a plane and a convex object."""
    vert = convex.vert

    # get points in the convex frame
    plane_pos = (convex.mat.T * (plane.pos - convex.pos)).sum(-1)
    n = (convex.mat.T * plane.mat[:, 2]).sum(-1)
    support = ((plane_pos - vert) * n).sum(-1)
    idx = _manifold_points(vert, support > 0, n)
    pos = _vmap_take(vert, idx)

    # convert to world frame
    pos = convex.pos + (pos.unsqueeze(-1) * convex.mat.T).sum(-2)
    n = plane.mat[:, 2]

    frame = torch.vmap(math.make_frame)(n.unsqueeze(0).expand(4, -1))
    unique = torch.tril(idx == idx[:, None]).sum(dim=1) == 1
    support_at_idx = _vmap_take_1d(support, idx)
    dist = torch.where(unique, -support_at_idx, torch.ones_like(support_at_idx))
    return dist, pos, frame


def sphere_convex(sphere: GeomInfo, convex: GeomInfo) -> Contact:
    """Calculates contact between a sphere and a convex object."""
    faces = convex.vert[convex.face]
    normals = convex.facenorm

    # Put sphere in convex frame.
    sphere_pos = (convex.mat.T * (sphere.pos - convex.pos)).sum(-1)

    # Get support from face normals.
    @torch.vmap
    def get_support(faces, normal):
        pos = sphere_pos - normal * sphere.geom_size[0]
        return ((pos - faces[0]) * normal).sum(-1)

    support = get_support(faces, normals)

    cfg = get_diff_config()

    # Pick the face with minimal penetration as long as it has support.
    support_masked = torch.where(
        support >= 0, torch.full((), -1e12, dtype=support.dtype, device=support.device), support
    )

    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        weights_face = torch.softmax(s * support_masked, dim=0)
        face = (weights_face.unsqueeze(-1).unsqueeze(-1) * faces).sum(dim=0)
        normal = (weights_face.unsqueeze(-1) * normals).sum(dim=0)
    else:
        best_idx = support_masked.argmax()
        face = _vmap_select(faces, best_idx)
        normal = _vmap_select(normals, best_idx)

    # Get closest point between the polygon face and the sphere center point.
    pt = _project_pt_onto_plane(sphere_pos, face[0], normal)
    edge_p0 = torch.roll(face, 1, dims=0)
    edge_p1 = face
    edge_normals = torch.vmap(math.cross, (0, None))(
        edge_p1 - edge_p0,
        normal,
    )
    edge_dist = ((pt - edge_p0) * edge_normals).sum(-1)
    inside = torch.all(edge_dist <= 0)

    degenerate_edge = torch.all(edge_normals == 0, dim=1)
    behind = edge_dist < 0.0
    edge_dist_masked = torch.where(
        degenerate_edge | behind, torch.full((), 1e12, dtype=edge_dist.dtype, device=edge_dist.device), edge_dist
    )

    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        weights_edge = torch.softmax(-s * edge_dist_masked, dim=0)
        edge_pt_0 = (weights_edge.unsqueeze(-1) * edge_p0).sum(dim=0)
        edge_pt_1 = (weights_edge.unsqueeze(-1) * edge_p1).sum(dim=0)
        edge_pt = math.closest_segment_point(edge_pt_0, edge_pt_1, pt)
        w_inside = torch.sigmoid(s * (-edge_dist.max()))
        pt = math.soft_where(w_inside, pt, edge_pt)
    else:
        idx = edge_dist_masked.argmin()
        edge_pt = math.closest_segment_point(_vmap_select(edge_p0, idx), _vmap_select(edge_p1, idx), pt)
        pt = torch.where(inside, pt, edge_pt)

    # Get the normal, dist, and contact position.
    n, d = math.normalize_with_norm(pt - sphere_pos)
    spt = sphere_pos + n * sphere.geom_size[0]
    dist = d - sphere.geom_size[0]
    pos = (pt + spt) * 0.5

    # Go back to world frame.
    n = (convex.mat * n).sum(-1)
    pos = (convex.mat * pos).sum(-1) + convex.pos

    return torch.utils._pytree.tree_map(lambda x: torch.unsqueeze(x, 0), (dist, pos, math.make_frame(n)))


def capsule_convex(cap: GeomInfo, convex: GeomInfo) -> Contact:
    """Calculates contacts between a capsule and a convex object."""
    # Get convex transformed normals, faces, and vertices.
    faces = convex.vert[convex.face]
    normals = convex.facenorm

    # Put capsule in convex frame.
    cap_pos = (convex.mat.T * (cap.pos - convex.pos)).sum(-1)
    axis, length = cap.mat[:, 2], cap.geom_size[1]
    axis = (convex.mat.T * axis).sum(-1)
    seg = axis * length
    cap_pts = torch.stack(
        [
            cap_pos - seg,
            cap_pos + seg,
        ]
    )

    # Get support from face normals.
    @torch.vmap
    def get_support(face, normal):
        pts = cap_pts - normal * cap.geom_size[0]
        sup = ((pts - face[0]) * normal).sum(-1)
        return sup.min()

    support = get_support(faces, normals)
    has_support = torch.all(support < 0)

    cfg = get_diff_config()

    # Pick the face with minimal penetration as long as it has support.
    support_masked = torch.where(
        support >= 0, torch.full((), -1e12, dtype=support.dtype, device=support.device), support
    )
    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        weights_face = torch.softmax(s * support_masked, dim=0)
        face = (weights_face.unsqueeze(-1).unsqueeze(-1) * faces).sum(dim=0)
        normal = (weights_face.unsqueeze(-1) * normals).sum(dim=0)
    else:
        best_idx = support_masked.argmax()
        face = _vmap_select(faces, best_idx)
        normal = _vmap_select(normals, best_idx)

    # Clip the edge against side planes and create two contact points against the
    # face.
    edge_p0 = torch.roll(face, 1, dims=0)
    edge_p1 = face
    edge_normals = torch.vmap(math.cross, (0, None))(
        edge_p1 - edge_p0,
        normal,
    )
    cap_pts_clipped, mask = _clip_edge_to_planes(cap_pts[0], cap_pts[1], edge_p0, edge_normals)
    cap_pts_clipped = cap_pts_clipped - normal * cap.geom_size[0]
    face_pts = torch.vmap(_project_pt_onto_plane, (0, None, None))(cap_pts_clipped, face[0], normal)
    # Create variables for the face contact.
    pos = (cap_pts_clipped + face_pts) * 0.5
    norm = normal.unsqueeze(0).expand(2, -1)
    penetration = torch.where(
        mask & has_support,
        ((face_pts - cap_pts_clipped) * normal).sum(-1),
        torch.full((), -1.0, dtype=face_pts.dtype, device=face_pts.device),
    )

    # Get a potential edge contact.
    edge_closest, cap_closest = torch.vmap(math.closest_segment_to_segment_points, (0, 0, None, None))(
        edge_p0, edge_p1, cap_pts[0], cap_pts[1]
    )
    edge_dists = ((edge_closest - cap_closest) ** 2).sum(dim=1)
    if cfg.smooth_collisions:
        s = cfg.smooth_sharpness
        cap_closest_pt = math.softmin_weighted(edge_dists, cap_closest, s)
        edge_closest_pt = math.softmin_weighted(edge_dists, edge_closest, s)
    else:
        e_idx = edge_dists.argmin()
        cap_closest_pt = _vmap_select(cap_closest, e_idx)
        edge_closest_pt = _vmap_select(edge_closest, e_idx)
    edge_axis = cap_closest_pt - edge_closest_pt
    edge_axis, edge_dist = math.normalize_with_norm(edge_axis)
    edge_pos = (edge_closest_pt + (cap_closest_pt - edge_axis * cap.geom_size[0])) * 0.5
    edge_norm = edge_axis
    edge_penetration = cap.geom_size[0] - edge_dist
    has_edge_contact = edge_penetration > 0

    # Get the contact info.
    pos_updated = pos.clone()
    pos_updated[0] = edge_pos
    pos = torch.where(has_edge_contact, pos_updated, pos)
    norm_updated = norm.clone()
    norm_updated[0] = edge_norm
    n = -torch.where(has_edge_contact, norm_updated, norm)

    # Go back to world frame.
    pos = convex.pos + (pos.unsqueeze(-1) * convex.mat.T).sum(-2)
    n = (n.unsqueeze(-1) * convex.mat.T).sum(-2)

    penetration_updated = penetration.clone()
    penetration_updated[0] = edge_penetration
    dist = -torch.where(has_edge_contact, penetration_updated, penetration)
    frame = torch.vmap(math.make_frame)(n)
    return dist, pos, frame


def convex_convex(c1: GeomInfo, c2: GeomInfo) -> Contact:
    """Calculates contacts between two convex objects."""
    if c1.face is None or c2.face is None or c1.vert is None or c2.vert is None:
        raise AssertionError("Mesh info missing.")
    # pad face vertices so that we can broadcast between geom1 and geom2
    s1, s2 = c1.face.shape[-1], c2.face.shape[-1]
    if s1 < s2:
        face = F.pad(c1.face, (0, s2 - s1), mode="replicate")
        c1 = c1.replace(face=face)
    elif s2 < s1:
        face = F.pad(c2.face, (0, s1 - s2), mode="replicate")
        c2 = c2.replace(face=face)

    # ensure that the first object has fewer verts
    swapped = c1.vert.shape[0] > c2.vert.shape[0]
    if swapped:
        c1, c2 = c2, c1

    faces1 = c1.vert[c1.face]
    faces2 = c2.vert[c2.face]

    to_local_pos = (c2.mat.T * (c1.pos - c2.pos)).sum(-1)
    to_local_mat = matmul_unroll(c2.mat.T, c1.mat)

    faces1 = to_local_pos + (faces1.unsqueeze(-1) * to_local_mat.T).sum(-2)
    normals1 = (c1.facenorm.unsqueeze(-1) * to_local_mat.T).sum(-2)
    normals2 = c2.facenorm

    vertices1 = to_local_pos + (c1.vert.unsqueeze(-1) * to_local_mat.T).sum(-2)
    vertices2 = c2.vert

    unique_edges1 = vertices1[c1.edge]
    unique_edges2 = vertices2[c2.edge]

    dist, pos, normal = _sat_hull_hull(
        faces1,
        faces2,
        vertices1,
        vertices2,
        normals1,
        normals2,
        unique_edges1,
        unique_edges2,
    )

    # Go back to world frame.
    pos = c2.pos + (pos.unsqueeze(-1) * c2.mat.T).sum(-2)
    normal = (normal.unsqueeze(-1) * c2.mat.T).sum(-2)
    normal = -normal if swapped else normal

    frame = torch.vmap(math.make_frame)(normal)
    return dist, pos, frame


# store ncon as function attributes
plane_convex.ncon = 4
sphere_convex.ncon = 1
capsule_convex.ncon = 2
convex_convex.ncon = 4
