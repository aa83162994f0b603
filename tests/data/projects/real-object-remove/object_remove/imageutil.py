"""Small shared image helpers: I/O and type conversions.

Images inside the pipeline are ``float32`` arrays in ``[0, 1]`` with shape
``(H, W, 3)`` for RGB. Masks are ``uint8`` / ``bool`` arrays of shape ``(H, W)``
where nonzero means "inside the hole to be filled".
"""

from __future__ import annotations

import numpy as np


def load_image(path: str) -> np.ndarray:
    """Load an image as float32 RGB in [0, 1]."""
    from PIL import Image

    img = Image.open(path).convert("RGB")
    return np.asarray(img, dtype=np.float32) / 255.0


def save_image(path: str, image: np.ndarray) -> None:
    """Save a float32 RGB [0, 1] image."""
    from PIL import Image

    arr = to_uint8(image)
    Image.fromarray(arr, mode="RGB").save(path)


def to_uint8(image: np.ndarray) -> np.ndarray:
    return np.clip(image * 255.0 + 0.5, 0, 255).astype(np.uint8)


def as_float_rgb(image: np.ndarray) -> np.ndarray:
    """Normalise an arbitrary input array to float32 RGB in [0, 1]."""
    arr = np.asarray(image)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / 255.0
    else:
        arr = arr.astype(np.float32)
    if arr.ndim == 2:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
    if arr.shape[2] == 4:
        arr = arr[:, :, :3]
    return np.ascontiguousarray(arr)


def rgb_to_gray(image: np.ndarray) -> np.ndarray:
    """ITU-R 601-2 luma. Input float RGB, output float (H, W)."""
    w = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    return image.reshape(-1, 3).dot(w).reshape(image.shape[:2])


def clamp_rect(x: int, y: int, rect_w: int, rect_h: int, width: int, height: int):
    """Clamp a rectangle to image bounds; return (x0, y0, x1, y1) exclusive."""
    x0 = max(0, x)
    y0 = max(0, y)
    x1 = min(width, x + rect_w)
    y1 = min(height, y + rect_h)
    return x0, y0, x1, y1
