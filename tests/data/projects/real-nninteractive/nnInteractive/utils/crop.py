from collections.abc import Callable
from typing import Sequence
import numpy as np
import torch
import torch.nn.functional as F


def crop_and_pad_into_buffer(
    target_tensor: torch.Tensor,
    bbox: Sequence[Sequence[int]],
    source_tensor,
    source_leading_slice=None,
    to_device: Callable[[torch.Tensor], torch.Tensor] | None = None,
    copy_into: Callable[[torch.Tensor, torch.Tensor], None] | None = None,
) -> None:
    """
    Copies a sub-region from source_tensor into target_tensor based on a bounding box.

    Args:
        target_tensor (torch.Tensor): A preallocated tensor that will be updated.
        bbox (sequence of [int, int]): A bounding box for each dimension of the source tensor
            that is covered by the bbox. The bbox is defined as [start, end) (half-open interval)
            and may extend outside the source tensor. If source_tensor has more dimensions than
            len(bbox), the leading dimensions will be fully included.
        source_tensor: The tensor (or blosc2 NDArray) to copy data from.
        source_leading_slice: Optional slice to apply to the first leading dimension of the source
            instead of slice(None). Useful for reading a subset of channels from a blosc2 NDArray
            without decompressing channel 0.
        to_device: Optional function used to move the (CPU) subregion to the target tensor's device when the
            two differ, e.g. the session's pinned-staging copy. Defaults to ``.to(target_tensor.device)``.
        copy_into: Optional function ``copy_into(src, dst_view)`` that writes the (CPU) subregion straight into the
            target region on another device, e.g. the session's slab-wise pinned-staging copy. Takes precedence over
            ``to_device``; avoids materializing the whole subregion on the target device first.

    Behavior:
        For each dimension that the bbox covers (i.e. the last len(bbox) dims of source_tensor):
            - Compute the overlapping region between the bbox and the source tensor.
            - Determine the corresponding indices in the target tensor where the data will be copied.
        For any extra leading dimensions (i.e. source_tensor.ndim > len(bbox)):
            - Use slice(None) to include the entire dimension (or source_leading_slice for the
              first leading dim when provided).
        If source_tensor and target_tensor are on different devices, only the overlapping subregion
        is transferred to the device of target_tensor.
    """
    total_dims = source_tensor.ndim
    bbox_dims = len(bbox)
    # Compute the number of leading dims that are not covered by bbox.
    leading_dims = total_dims - bbox_dims

    source_slices = []
    target_slices = []

    # For the leading dimensions, include the entire dimension.
    for d in range(leading_dims):
        if d == 0 and source_leading_slice is not None:
            source_slices.append(source_leading_slice)
        else:
            source_slices.append(slice(None))
        target_slices.append(slice(None))

    # Process the dimensions covered by the bbox.
    for d in range(bbox_dims):
        box_start, box_end = bbox[d]
        d_source = leading_dims + d
        source_size = source_tensor.shape[d_source]

        # Compute the overlapping region in source coordinates.
        copy_start_source = max(box_start, 0)
        copy_end_source = min(box_end, source_size)
        copy_size = copy_end_source - copy_start_source

        # Compute the corresponding indices in the target tensor.
        copy_start_target = max(0, -box_start)
        copy_end_target = copy_start_target + copy_size

        source_slices.append(slice(copy_start_source, copy_end_source))
        target_slices.append(slice(copy_start_target, copy_end_target))

    # Extract the overlapping region from the source.
    sub_source = source_tensor[tuple(source_slices)]
    # Convert non-torch (e.g. blosc2 NDArray or numpy) to torch tensor.
    if not isinstance(sub_source, torch.Tensor):
        sub_source = torch.from_numpy(np.asarray(sub_source))
    # Transfer only this subregion to the target tensor's device.
    if not isinstance(target_tensor, torch.Tensor):
        sub_source = sub_source.cpu()
    elif copy_into is not None and sub_source.device != target_tensor.device:
        copy_into(sub_source, target_tensor[tuple(target_slices)])
        return
    elif to_device is not None and sub_source.device != target_tensor.device:
        sub_source = to_device(sub_source)
    else:
        sub_source = sub_source.to(target_tensor.device)
    # Write the data into the preallocated target_tensor.
    target_tensor[tuple(target_slices)] = sub_source


def paste_tensor(target, source, bbox, channel_idx=None):
    """
    Paste a source tensor into a target tensor using a given bounding box.

    Both tensors are assumed to be 3D (or 4D when channel_idx is provided for the target).
    The bounding box is specified in the coordinate system of the target as:
      [[x1, x2], [y1, y2], [z1, z2]]
    and its size is assumed to be equal to the shape of the source tensor.
    The bbox may exceed the boundaries of the target tensor.

    Args:
        target: The target tensor (torch.Tensor of shape (T0, T1, T2)) or blosc2 NDArray of
                shape (C, T0, T1, T2) when channel_idx is provided.
        source: The source tensor of shape (S0, S1, S2). It must be the same size as the bbox.
        bbox (list or tuple): List of intervals for each dimension: [[x1, x2], [y1, y2], [z1, z2]].
        channel_idx (int, optional): If provided, paste into this channel of a 4D target.
            For torch.Tensor targets, delegates to target[channel_idx]. For blosc2 NDArray
            targets, performs a numpy read-modify-write on the specified channel.

    Returns:
        The target after pasting in the source (for torch.Tensor targets).
    """
    # When channel_idx is given and target is a torch Tensor, delegate to the channel view.
    if channel_idx is not None and isinstance(target, torch.Tensor):
        return paste_tensor(target[channel_idx], source, bbox)

    # Spatial extent of the paste target (skip the channel dim of a 4D blosc2 target).
    target_shape = target.shape[1:] if channel_idx is not None else target.shape

    # For each dimension compute:
    #   - The valid region in the target: [t_start, t_end)
    #   - The corresponding region in the source: [s_start, s_end)
    target_slices = []
    source_slices = []

    for i, (b0, b1) in enumerate(bbox):
        # Determine valid region in target tensor:
        t_start = max(b0, 0)
        t_end = min(b1, target_shape[i])
        # If there's no overlap in any dimension, nothing gets pasted.
        if t_start >= t_end:
            return target

        # Determine corresponding indices in the source tensor.
        # The source's coordinate 0 corresponds to b0 in the target.
        s_start = t_start - b0
        s_end = s_start + (t_end - t_start)

        target_slices.append(slice(t_start, t_end))
        source_slices.append(slice(s_start, s_end))

    target_slices = tuple(target_slices)
    source_slices = tuple(source_slices)

    if channel_idx is not None:
        # 4D blosc2 NDArray target: numpy read-modify-write on the selected channel. blosc2's
        # setitem needs a C-contiguous array of the target's dtype; ascontiguousarray converts
        # dtype/layout in one pass and skips the copy when both already match.
        src = source[source_slices]
        if isinstance(src, torch.Tensor):
            src = src.cpu().numpy()
        target[(channel_idx, *target_slices)] = np.ascontiguousarray(src, dtype=target.dtype)
    elif isinstance(target, torch.Tensor):
        target[target_slices] = source[source_slices].to(target.device)
    else:
        target[target_slices] = source[source_slices].cpu()

    return target


def crop_to_valid(img, bbox, out=None):
    """
    Crops the image to the part of the bounding box that lies within the image.
    Supports a 4D tensor of shape (C, X, Y, Z). The bounding box is specified as
    [[x1, x2], [y1, y2], [z1, z2]] with half-open intervals.

    Args:
        img: Input tensor (or blosc2 NDArray) of shape (C, X, Y, Z).
        bbox (list or tuple): Bounding box as a list of three intervals for spatial dims:
                              [[x1, x2], [y1, y2], [z1, z2]].
        out (np.ndarray, optional): A flat, pre-faulted float16 buffer to decompress a blosc2
                              crop into, avoiding a fresh allocation + page-fault on every call
                              ("Path B"). Only used when ``img`` is a blosc2 NDArray exposing
                              ``get_slice_numpy`` and the crop fits; otherwise ignored and a fresh
                              array is returned. When used, the returned crop is a VIEW into ``out``
                              and is only valid until the next call that reuses the same buffer.

    Returns:
        cropped: Cropped data of shape (C, cropped_x, cropped_y, cropped_z).
        pad (list of tuples): A list [(pad_x_left, pad_x_right),
                                     (pad_y_left, pad_y_right),
                                     (pad_z_left, pad_z_right)]
                              indicating how much padding needs to be applied on each side.
    """
    # Only spatial dimensions (X, Y, Z) are cropped; channels are preserved.
    spatial_dims = img.shape[1:]  # (X, Y, Z)
    crop_indices = []
    pad = []  # for each spatial dimension

    for i, (start, end) in enumerate(bbox):
        dim_size = spatial_dims[i]
        # Clamp the indices to the valid range for cropping.
        crop_start = max(start, 0)
        crop_end = min(end, dim_size)
        crop_indices.append((crop_start, crop_end))
        # Calculate padding if the bbox goes out-of-bound.
        pad_left = -start if start < 0 else 0
        pad_right = end - dim_size if end > dim_size else 0
        pad.append((pad_left, pad_right))

    # Path B: decompress the blosc2 crop straight into a reused, pre-faulted buffer to avoid the
    # per-call allocation + first-touch page-fault cost. get_slice_numpy is blosc2's internal
    # decompress-into-buffer method (what __getitem__ calls under the hood); guarded since it is
    # not a documented public API. Falls back to a fresh allocation if the crop would not fit.
    if out is not None and not isinstance(img, torch.Tensor) and hasattr(img, "get_slice_numpy"):
        valid_shape = [ce - cs for cs, ce in crop_indices]
        output_shape = (img.shape[0], *valid_shape)
        n = int(np.prod(output_shape, dtype=np.int64))
        if n <= out.size:
            view = out[:n].reshape(output_shape)
            start = (0, *[cs for cs, _ in crop_indices])
            stop = (img.shape[0], *[ce for _, ce in crop_indices])
            img.get_slice_numpy(view, (start, stop))
            return view, pad
        print(
            f"WARNING: interaction crop of {n} elements (shape {output_shape}) exceeds the reusable "
            f"decompression buffer of {out.size} elements; this should never happen. Falling back to "
            "a fresh allocation."
        )

    # Crop the image on spatial dimensions, leaving the channel dimension intact.
    cropped = img[
        :,
        crop_indices[0][0] : crop_indices[0][1],
        crop_indices[1][0] : crop_indices[1][1],
        crop_indices[2][0] : crop_indices[2][1],
    ]
    return cropped, pad


def pad_cropped(cropped: torch.Tensor, pad):
    """
    Pads the cropped image using the given pad amounts.
    Supports a 4D tensor of shape (C, X, Y, Z) and applies padding only on the spatial dimensions.
    For 3D (volumetric) padding, F.pad expects a 5D tensor with shape (N, C, X, Y, Z).
    Hence, we temporarily add a dummy batch dimension.

    Args:
        cropped (torch.Tensor): Cropped tensor of shape (C, X, Y, Z).
        pad (list of tuples): List of padding for each spatial dimension, in order (x, y, z):
                              [(pad_x_left, pad_x_right),
                               (pad_y_left, pad_y_right),
                               (pad_z_left, pad_z_right)].

    Returns:
        padded (torch.Tensor): Padded tensor of shape (C, desired_x, desired_y, desired_z),
                               where the spatial dimensions match the bbox size.
    """
    # F.pad for 3D data expects a 5D input (N, C, X, Y, Z) and a pad tuple of length 6:
    # (pad_z_left, pad_z_right, pad_y_left, pad_y_right, pad_x_left, pad_x_right)
    need_unsqueeze = cropped.dim() == 4
    if need_unsqueeze:
        cropped = cropped.unsqueeze(0)  # Now shape is (1, C, X, Y, Z)

    # Reverse the pad list (currently in order x, y, z) to match F.pad's expected order: z, y, x.
    pad_rev = pad[::-1]
    pad_flat = [p for pair in pad_rev for p in pair]
    padded = F.pad(cropped, pad_flat)

    if need_unsqueeze:
        padded = padded.squeeze(0)
    return padded
