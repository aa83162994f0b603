"""Utilities for channel slicing and patch padding."""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def pad_patch(
    coords: Sequence[int],
    patch_size: Sequence[int],
    data_shape: Sequence[int],
    patch_data: NDArray,
) -> NDArray[np.float32]:
    """
    Pad patch data with zeros where it is outside the bounds of it's source image.

    This ensures the patch data is contained in an array with the expected patch size.

    If `coords` are negative, the start of the patch will be padded with zeros up until
    where the start of the image would be, and this is where the patch data starts.

    If the `coords + patch_size` are greater than the bounds of the image then the
    end of the patch will be filled with zeros.

    Parameters
    ----------
    coords : Sequence[int]
        The coordinates that describe where the patch starts in the spatial dimension of
        the image.
    patch_size : Sequence[int]
        The size of the patch in the spatial dimensions.
    data_shape : Sequence[int]
        The shape of the image the patch originates from, must be in the format SC(Z)YX.
    patch_data : numpy.typing.NDArray[T]
        The patch data to be padded, with axes C(Z)YX.

    Returns
    -------
    numpy.typing.NDArray[np.float32]
        The resulting padded patch.
    """
    coords_ = np.array(coords)
    patch = np.zeros((patch_data.shape[0], *patch_size), dtype=np.float32)
    # data start will be zero unless coords are negative
    data_start = np.clip(coords_, 0, None) - coords_
    data_end = data_start + np.array(patch_data.shape[1:])
    patch[
        (
            slice(None, None, None),  # channel slice
            *tuple(slice(s, t) for s, t in zip(data_start, data_end, strict=False)),
        )
    ] = patch_data
    return patch
