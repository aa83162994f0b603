"""Wire/cable removal — a *derived*, not painted, mask acquisition model.

Three gesture front ends (tap, dragged path, two endpoints) feed a thin
structure (ridge) detector that derives a thin mask along the wire from the
user's gesture, rather than the user painting full coverage themselves.
Once the thin mask exists, pixel synthesis reuses the ordinary fill engines
(tier 0/tier 2 are the natural fit for a thin, usually simple-background
gap) -- this module is exclusively about *finding the mask*.

Ridge strength is the dominant-magnitude eigenvalue of the local Hessian (a
thin bright or dark line produces strong curvature perpendicular to itself);
the direction *along* the ridge comes from the structure tensor's dominant
gradient direction rotated 90 degrees (:func:`cv.harris.structure_tensor`,
already built for corner detection, reused here for its direction field
instead of its corner-ness score). A greedy walk snaps to the locally
strongest nearby ridge pixel each step, correcting the structure tensor
angle's inherent sign ambiguity (a line direction, not a vector) by keeping
it aligned with the previous step's direction.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ..cv.harris import structure_tensor
from ..cv.symmetric_convolution import gaussian_blur_sigma
from ..imageutil import as_float_rgb, rgb_to_gray
from ..mask.brush_rasterizer import BrushRasterizer

Point = Tuple[float, float]  # (y, x)


def ridge_response(gray: np.ndarray, sigma: float = 1.5) -> np.ndarray:
    """Dominant-magnitude Hessian eigenvalue at every pixel -- large where a
    thin bright/dark structure crosses, near zero on flat regions or broad
    edges."""
    smoothed = gaussian_blur_sigma(gray, sigma)
    gy, gx = np.gradient(smoothed)
    gyy, gyx = np.gradient(gy)
    gxy, gxx = np.gradient(gx)
    hxx, hyy, hxy = gxx, gyy, 0.5 * (gxy + gyx)
    trace = hxx + hyy
    det = hxx * hyy - hxy * hxy
    disc = np.sqrt(np.clip(trace * trace - 4.0 * det, 0.0, None))
    lambda1 = (trace + disc) / 2.0
    lambda2 = (trace - disc) / 2.0
    return np.maximum(np.abs(lambda1), np.abs(lambda2))


def _ridge_direction_field(gray: np.ndarray, sigma: float) -> Tuple[np.ndarray, np.ndarray]:
    """Per pixel unit vector ``(dy, dx)`` along the local ridge/edge
    direction (perpendicular to the structure tensor's dominant gradient
    direction)."""
    smoothed = gaussian_blur_sigma(gray, sigma)
    sxx, syy, sxy = structure_tensor(smoothed)
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy) + np.pi / 2
    return np.sin(theta), np.cos(theta)


def _argmax_near(window: np.ndarray, center_y: int, center_x: int) -> Tuple[int, int]:
    """``argmax`` of ``window``, with ties broken toward ``(center_y,
    center_x)`` instead of numpy's default first-occurrence (smallest row,
    then column). A straight, uniform-strength ridge has *identical*
    response at every position along it, so a plain ``argmax`` always
    collapses to the window's top-left corner regardless of which way the
    walk is actually headed -- this tiny proximity tiebreak only matters
    when ridge strengths are equal/near-equal, so it never overrides a
    genuine ridge strength difference (e.g. where the line curves)."""
    yy, xx = np.mgrid[0:window.shape[0], 0:window.shape[1]]
    dist2 = (yy - center_y) ** 2 + (xx - center_x) ** 2
    score = window - 1e-6 * dist2
    ly, lx = np.unravel_index(np.argmax(score), score.shape)
    return int(ly), int(lx)


def _snap_to_ridge(ridge: np.ndarray, point: Point, radius: int) -> Tuple[int, int]:
    H, W = ridge.shape
    y, x = int(round(point[0])), int(round(point[1]))
    y0, y1 = max(0, y - radius), min(H, y + radius + 1)
    x0, x1 = max(0, x - radius), min(W, x + radius + 1)
    window = ridge[y0:y1, x0:x1]
    ly, lx = _argmax_near(window, y - y0, x - x0)
    return (y0 + ly, x0 + lx)


def _walk_ridge(ridge: np.ndarray, dir_y: np.ndarray, dir_x: np.ndarray,
                start: Tuple[int, int], initial_dir: np.ndarray, steps: int,
                step_size: float, search_radius: int, threshold: float) -> List[Tuple[int, int]]:
    H, W = ridge.shape
    cur = np.array(start, dtype=np.float64)
    prev_dir = initial_dir / (np.linalg.norm(initial_dir) + 1e-9)
    pts = [start]
    for _ in range(steps):
        y, x = int(round(cur[0])), int(round(cur[1]))
        if not (0 <= y < H and 0 <= x < W):
            break
        dvec = np.array([dir_y[y, x], dir_x[y, x]])
        # the structure tensor angle only defines a *line* (mod pi), not a
        # signed direction -- keep it pointing the same way as the last step
        if np.dot(dvec, prev_dir) < 0:
            dvec = -dvec
        nxt = cur + dvec * step_size
        ny, nx = int(round(nxt[0])), int(round(nxt[1]))
        y0, y1 = max(0, ny - search_radius), min(H, ny + search_radius + 1)
        x0, x1 = max(0, nx - search_radius), min(W, nx + search_radius + 1)
        if y1 <= y0 or x1 <= x0:
            break
        window = ridge[y0:y1, x0:x1]
        if float(window.max()) < threshold:
            break
        ly, lx = _argmax_near(window, ny - y0, nx - x0)
        snapped = np.array([y0 + ly, x0 + lx], dtype=np.float64)
        step_dir = snapped - cur
        if np.linalg.norm(step_dir) > 1e-6:
            prev_dir = step_dir / np.linalg.norm(step_dir)
        cur = snapped
        pts.append((int(cur[0]), int(cur[1])))
    return pts


def _rasterize_path(shape: Tuple[int, int], path_yx: Sequence[Tuple[int, int]], radius: float) -> np.ndarray:
    H, W = shape
    if not path_yx:
        return np.zeros((H, W), dtype=bool)
    points_xy = [(float(x), float(y)) for (y, x) in path_yx]
    return BrushRasterizer(width=W, height=H).stamp_stroke(points_xy, radius=radius)


def find_wire_by_tap(image: np.ndarray, seed: Point, search_radius: int = 5,
                     max_steps: int = 40, step_size: float = 3.0, sigma: float = 1.5,
                     brush_radius: float = 2.0) -> np.ndarray:
    """Single tap on the wire: trace outward from the seed in both directions."""
    gray = rgb_to_gray(as_float_rgb(image).astype(np.float32))
    ridge = ridge_response(gray, sigma)
    dir_y, dir_x = _ridge_direction_field(gray, sigma)
    seed_snapped = _snap_to_ridge(ridge, seed, search_radius)
    y, x = seed_snapped
    threshold = ridge[y, x] * 0.25
    init_dir = np.array([dir_y[y, x], dir_x[y, x]])
    if np.linalg.norm(init_dir) < 1e-9:
        return _rasterize_path(image.shape[:2], [seed_snapped], brush_radius)
    fwd = _walk_ridge(ridge, dir_y, dir_x, seed_snapped, init_dir,
                      max_steps // 2, step_size, search_radius, threshold)
    bwd = _walk_ridge(ridge, dir_y, dir_x, seed_snapped, -init_dir,
                      max_steps // 2, step_size, search_radius, threshold)
    path = list(reversed(bwd)) + fwd[1:]
    return _rasterize_path(image.shape[:2], path, brush_radius)


def find_wire_by_two_points(image: np.ndarray, p0: Point, p1: Point, search_radius: int = 5,
                            sigma: float = 1.5, brush_radius: float = 2.0) -> np.ndarray:
    """User marks both endpoints: snap a straight-line interpolation onto the ridge."""
    gray = rgb_to_gray(as_float_rgb(image).astype(np.float32))
    ridge = ridge_response(gray, sigma)
    p0a, p1a = np.array(p0, dtype=np.float64), np.array(p1, dtype=np.float64)
    dist = float(np.linalg.norm(p1a - p0a))
    n_steps = max(2, int(dist / max(1, search_radius)))
    path = [_snap_to_ridge(ridge, tuple(p0a + t * (p1a - p0a)), search_radius)
           for t in np.linspace(0, 1, n_steps + 1)]
    return _rasterize_path(image.shape[:2], path, brush_radius)


def find_wire_by_path(image: np.ndarray, path_points: Sequence[Point], search_radius: int = 4,
                      sigma: float = 1.5, brush_radius: float = 2.0) -> np.ndarray:
    """User drags along the wire: the drawn path already approximates it, so
    each point just needs a local snap to the true ridge."""
    gray = rgb_to_gray(as_float_rgb(image).astype(np.float32))
    ridge = ridge_response(gray, sigma)
    snapped = [_snap_to_ridge(ridge, pt, search_radius) for pt in path_points]
    return _rasterize_path(image.shape[:2], snapped, brush_radius)
