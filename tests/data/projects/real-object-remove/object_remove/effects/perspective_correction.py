"""4-point perspective correction: the user marks 4 corners of a quad that
should be a straight rectangle (a receding wall, a photographed document);
fits a homography and inverse-warps the image so that quad becomes axis
aligned. A direct linear transform from 4 point correspondences, warp via
bilinear sampling -- no external CV dependency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np


def compute_homography(src_pts: np.ndarray, dst_pts: np.ndarray) -> np.ndarray:
    """3x3 homography mapping ``src_pts`` -> ``dst_pts`` (4 correspondences,
    direct linear transform: 8 equations, 8 unknowns, ``h33`` fixed to 1)."""
    src_pts = np.asarray(src_pts, dtype=np.float64)
    dst_pts = np.asarray(dst_pts, dtype=np.float64)
    A = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (xp, yp)) in enumerate(zip(src_pts, dst_pts)):
        A[2 * i] = [x, y, 1, 0, 0, 0, -x * xp, -y * xp]
        b[2 * i] = xp
        A[2 * i + 1] = [0, 0, 0, x, y, 1, -x * yp, -y * yp]
        b[2 * i + 1] = yp
    h = np.linalg.solve(A, b)
    return np.array([[h[0], h[1], h[2]],
                     [h[3], h[4], h[5]],
                     [h[6], h[7], 1.0]])


def apply_homography(H: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(N, 2)`` pixel points -> ``(N, 2)`` mapped points."""
    points = np.asarray(points, dtype=np.float64)
    homo = np.concatenate([points, np.ones((points.shape[0], 1))], axis=1)
    mapped = homo @ H.T
    return mapped[:, :2] / mapped[:, 2:3]


def calculate_points_w(H: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The homogeneous divisor ``w`` for each point under ``H`` -- how
    strongly perspective foreshortens it (used to weight blending near
    heavily foreshortened corners)."""
    points = np.asarray(points, dtype=np.float64)
    homo = np.concatenate([points, np.ones((points.shape[0], 1))], axis=1)
    return (homo @ H.T)[:, 2]


def most_distant_point_index(points: np.ndarray, reference: Tuple[float, float]) -> int:
    """Index of the point farthest from ``reference`` (e.g. the image centre)."""
    points = np.asarray(points, dtype=np.float64)
    d = np.hypot(points[:, 0] - reference[0], points[:, 1] - reference[1])
    return int(np.argmax(d))


def _line_intersect(p1, p2, p3, p4) -> Tuple[float, float]:
    (x1, y1), (x2, y2), (x3, y3), (x4, y4) = p1, p2, p3, p4
    denom = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if abs(denom) < 1e-9:
        return (float("inf"), float("inf"))
    px = ((x1 * y2 - y1 * x2) * (x3 - x4) - (x1 - x2) * (x3 * y4 - y3 * x4)) / denom
    py = ((x1 * y2 - y1 * x2) * (y3 - y4) - (y1 - y2) * (x3 * y4 - y3 * x4)) / denom
    return (px, py)


def get_horizon_points(corners: np.ndarray) -> Tuple[Tuple[float, float], Tuple[float, float]]:
    """Given 4 quad corners ``[top-left, top-right, bottom-right,
    bottom-left]``, intersect each pair of opposite edges to find the two
    vanishing points on the horizon."""
    tl, tr, br, bl = [tuple(p) for p in corners]
    horizontal_vp = _line_intersect(tl, bl, tr, br)  # left edge x right edge
    vertical_vp = _line_intersect(tl, tr, bl, br)     # top edge x bottom edge
    return horizontal_vp, vertical_vp


def _bilinear_sample(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Bilinear sample; the second tap (``x1``/``y1``) is clamped rather
    than required in-bounds, so a query exactly on the last row/column
    (``x1 == W``) still samples correctly by duplicating the edge pixel
    (``wx``/``wy`` is 0 there, so the clamped duplicate contributes nothing
    wrong) instead of being rejected as out of bounds."""
    H, W = image.shape[:2]
    x0 = np.floor(xs).astype(np.int64)
    y0 = np.floor(ys).astype(np.int64)
    x1, y1 = x0 + 1, y0 + 1
    wx = (xs - x0)[..., None]
    wy = (ys - y0)[..., None]
    valid = (xs >= 0) & (xs <= W - 1) & (ys >= 0) & (ys <= H - 1)
    x0c, x1c = np.clip(x0, 0, W - 1), np.clip(x1, 0, W - 1)
    y0c, y1c = np.clip(y0, 0, H - 1), np.clip(y1, 0, H - 1)
    Ia, Ib = image[y0c, x0c], image[y0c, x1c]
    Ic, Id = image[y1c, x0c], image[y1c, x1c]
    top = Ia * (1 - wx) + Ib * wx
    bot = Ic * (1 - wx) + Id * wx
    out = top * (1 - wy) + bot * wy
    out[~valid] = 0.0
    return out


def bilinear_resize(image: np.ndarray, out_shape: Tuple[int, int]) -> np.ndarray:
    """Plain bilinear resize to ``out_shape`` (oh, ow) -- pixel-center mapping
    with clamped borders, not a homography warp. Shared by callers that need
    an arbitrary-scale resize (e.g. the selection enhancer's pyramid blur)
    without duplicating the bilinear-sample math."""
    ih, iw = image.shape[:2]
    oh, ow = out_shape
    yy, xx = np.mgrid[0:oh, 0:ow]
    src_x = np.clip((xx.astype(np.float64) + 0.5) * (iw / ow) - 0.5, 0.0, iw - 1)
    src_y = np.clip((yy.astype(np.float64) + 0.5) * (ih / oh) - 0.5, 0.0, ih - 1)
    img = image.astype(np.float64)
    squeeze = img.ndim == 2
    if squeeze:
        img = img[:, :, None]
    sampled = _bilinear_sample(img, src_x.ravel(), src_y.ravel())
    sampled = sampled.reshape(oh, ow, -1)
    return sampled[:, :, 0] if squeeze else sampled


def map_image(image: np.ndarray, H: np.ndarray, out_shape: Tuple[int, int]) -> np.ndarray:
    """Warp ``image`` through ``H`` (src -> dst) into an image of
    ``out_shape``, via inverse mapping + bilinear sampling."""
    oh, ow = out_shape
    H_inv = np.linalg.inv(H)
    yy, xx = np.mgrid[0:oh, 0:ow]
    dst_pts = np.stack([xx.ravel(), yy.ravel()], axis=1).astype(np.float64)
    src_pts = apply_homography(H_inv, dst_pts)
    img = image.astype(np.float64)
    squeeze = img.ndim == 2
    if squeeze:
        img = img[:, :, None]
    sampled = _bilinear_sample(img, src_pts[:, 0], src_pts[:, 1])
    sampled = sampled.reshape(oh, ow, -1)
    return sampled[:, :, 0] if squeeze else sampled


def map_back(image: np.ndarray, H: np.ndarray, out_shape: Tuple[int, int]) -> np.ndarray:
    """Inverse of :func:`map_image`: warp a corrected image back into the
    original (pre-correction) frame."""
    return map_image(image, np.linalg.inv(H), out_shape)


def to_relative(points_px: np.ndarray, image_shape: Tuple[int, int]) -> np.ndarray:
    h, w = image_shape[:2]
    return np.asarray(points_px, dtype=np.float64) / np.array([w, h])


def to_pixels(points_rel: np.ndarray, image_shape: Tuple[int, int]) -> np.ndarray:
    h, w = image_shape[:2]
    return np.asarray(points_rel, dtype=np.float64) * np.array([w, h])


def map_original_to_corrected_image(H: np.ndarray, points_px: np.ndarray) -> np.ndarray:
    return apply_homography(H, points_px)


def map_corrected_image_to_original(H: np.ndarray, points_px: np.ndarray) -> np.ndarray:
    return apply_homography(np.linalg.inv(H), points_px)


def map_original_to_corrected_relative(H: np.ndarray, points_rel: np.ndarray,
                                       src_shape: Tuple[int, int], dst_shape: Tuple[int, int]) -> np.ndarray:
    mapped_px = apply_homography(H, to_pixels(points_rel, src_shape))
    return to_relative(mapped_px, dst_shape)


def map_corrected_to_original_relative(H: np.ndarray, points_rel: np.ndarray,
                                       dst_shape: Tuple[int, int], src_shape: Tuple[int, int]) -> np.ndarray:
    mapped_px = apply_homography(np.linalg.inv(H), to_pixels(points_rel, dst_shape))
    return to_relative(mapped_px, src_shape)


@dataclass
class FourPointPerspectiveCorrector:
    def correct(self, image: np.ndarray, corners: np.ndarray,
               out_shape: Optional[Tuple[int, int]] = None) -> Tuple[np.ndarray, np.ndarray]:
        """``corners``: ``(4, 2)`` ``[top-left, top-right, bottom-right,
        bottom-left]`` pixel coordinates of a quad that should become an
        axis aligned rectangle. Returns ``(corrected_image, homography)``."""
        if out_shape is None:
            out_shape = image.shape[:2]
        oh, ow = out_shape
        dst = np.array([[0, 0], [ow - 1, 0], [ow - 1, oh - 1], [0, oh - 1]], dtype=np.float64)
        H = compute_homography(np.asarray(corners, dtype=np.float64), dst)
        corrected = map_image(image, H, out_shape)
        return corrected, H
