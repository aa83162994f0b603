"""Bounding-box coordinate transformation utilities.

Three coordinate spaces are used throughout this module:

- **frame**: absolute pixel position in the original full-resolution camera frame.
- **norm**: [0, 1] coordinates normalised relative to the bounding box
  (top-left corner of bbox = (0, 0), bottom-right = (1, 1)).  This is the
  intermediate space between frame and model.
- **model**: pixel position in the model's resized input image (after cropping
  the frame to the bounding box and scaling to the model's input resolution).

Tensor-level helpers (accept explicit keypoint tensors, plus bbox and/or model
dimension arguments):

- :func:`frame_to_norm`  — frame → norm
- :func:`norm_to_frame`  — norm → frame  (mutates input in-place)
- :func:`model_to_norm`  — model → norm
- :func:`norm_to_model`  — norm → model
- :func:`frame_to_model` — frame → model  (= frame_to_norm ∘ norm_to_model)
- :func:`model_to_frame` — model → frame  (= model_to_norm ∘ norm_to_frame)

Batch-level wrappers (accept a ``batch_dict`` that carries ``bbox`` and image
dimensions; handle both single-view and multi-view):

- :func:`frame_to_model_batch` — frame → model  (called before loss computation)
- :func:`model_to_frame_batch` — model → frame  (called after inference)

Video-reader helpers (used by all three readers in ``lightning_pose.data.video`` to crop
per-frame bboxes out of full-resolution frames before inference):

- :func:`as_bbox_df_list`     — normalize a reader's ``bbox_df`` to one DataFrame per view
- :func:`slice_bbox_rows`     — select (and pad) the bbox rows for one batch
- :func:`crop_and_resize_frames` — crop + resize one view's frames to its bboxes
- :func:`crop_views`          — apply the above to every view of a batch independently
- :func:`full_frame_bbox`     — default bbox covering the whole decoded frame
"""

import pandas as pd
import torch
import torch.nn.functional as F
from jaxtyping import Float

from lightning_pose.data.datatypes import (
    HeatmapLabeledBatchDict,
    MultiviewHeatmapLabeledBatchDict,
    MultiviewUnlabeledBatchDict,
    UnlabeledBatchDict,
)

# to ignore imports for sphinx-autoapidoc
__all__: list[str] = []


def frame_to_norm(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    bbox: Float[torch.Tensor, 'batch xyhw'],
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Transform keypoints from frame coordinates to norm coordinates.

    Args:
        keypoints: keypoints in frame (pixel) coordinates, shape (batch, num_keypoints, 2)
        bbox: bounding boxes in [x, y, h, w] format, shape (batch, 4)

    Returns:
        keypoints in norm coordinates, shape (batch, num_keypoints, 2)
    """
    kp = keypoints.clone()
    if kp.shape[0] == bbox.shape[0]:
        # normal batch
        kp[:, :, 0] -= bbox[:, 0].unsqueeze(1)   # subtract bbox x offset
        kp[:, :, 0] /= bbox[:, 3].unsqueeze(1)   # divide by bbox width
        kp[:, :, 1] -= bbox[:, 1].unsqueeze(1)   # subtract bbox y offset
        kp[:, :, 1] /= bbox[:, 2].unsqueeze(1)   # divide by bbox height
    else:
        # context batch; we don't have predictions for first/last two frames
        kp[:, :, 0] -= bbox[2:-2, 0].unsqueeze(1)
        kp[:, :, 0] /= bbox[2:-2, 3].unsqueeze(1)
        kp[:, :, 1] -= bbox[2:-2, 1].unsqueeze(1)
        kp[:, :, 1] /= bbox[2:-2, 2].unsqueeze(1)
    return kp


def norm_to_frame(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    bbox: Float[torch.Tensor, 'batch xyhw'],
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Transform keypoints from norm coordinates to frame coordinates.

    Unlike all other helpers in this module, this function modifies ``keypoints``
    in-place and returns it.  Callers that need to preserve the original tensor
    should pass a clone.

    Args:
        keypoints: keypoints in norm coordinates, shape (batch, num_keypoints, 2);
            modified in-place
        bbox: bounding boxes in [x, y, h, w] format, shape (batch, 4)

    Returns:
        keypoints in frame (pixel) coordinates, shape (batch, num_keypoints, 2);
            same tensor as the input
    """
    if keypoints.shape[0] == bbox.shape[0]:
        # normal batch
        keypoints[:, :, 0] *= bbox[:, 3].unsqueeze(1)  # scale x by box width
        keypoints[:, :, 0] += bbox[:, 0].unsqueeze(1)  # add bbox x offset
        keypoints[:, :, 1] *= bbox[:, 2].unsqueeze(1)  # scale y by box height
        keypoints[:, :, 1] += bbox[:, 1].unsqueeze(1)  # add bbox y offset
    else:
        # context batch; we don't have predictions for first/last two frames
        keypoints[:, :, 0] *= bbox[2:-2, 3].unsqueeze(1)  # scale x by box width
        keypoints[:, :, 0] += bbox[2:-2, 0].unsqueeze(1)  # add bbox x offset
        keypoints[:, :, 1] *= bbox[2:-2, 2].unsqueeze(1)  # scale y by box height
        keypoints[:, :, 1] += bbox[2:-2, 1].unsqueeze(1)  # add bbox y offset
    return keypoints


def model_to_norm(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    model_width: float,
    model_height: float,
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Transform keypoints from model coordinates to norm coordinates.

    Args:
        keypoints: keypoints in model (pixel) coordinates, shape (batch, num_keypoints, 2)
        model_width: width of the model's input image in pixels
        model_height: height of the model's input image in pixels

    Returns:
        keypoints in norm coordinates, shape (batch, num_keypoints, 2)
    """
    kp = keypoints.clone()
    kp[:, :, 0] /= model_width
    kp[:, :, 1] /= model_height
    return kp


def norm_to_model(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    model_width: float,
    model_height: float,
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Transform keypoints from norm coordinates to model coordinates.

    Args:
        keypoints: keypoints in norm coordinates, shape (batch, num_keypoints, 2)
        model_width: width of the model's input image in pixels
        model_height: height of the model's input image in pixels

    Returns:
        keypoints in model (pixel) coordinates, shape (batch, num_keypoints, 2)
    """
    kp = keypoints.clone()
    kp[:, :, 0] *= model_width
    kp[:, :, 1] *= model_height
    return kp


def frame_to_model(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    bbox: Float[torch.Tensor, 'batch xyhw'],
    model_width: float,
    model_height: float,
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Convert keypoints from frame coordinates to model coordinates.

    Composes two transformations: frame → norm → model.

    Args:
        keypoints: keypoints in frame (pixel) coordinates, shape (batch, num_keypoints, 2)
        bbox: bounding boxes in [x, y, h, w] format, shape (batch, 4)
        model_width: width of the model's input image in pixels
        model_height: height of the model's input image in pixels

    Returns:
        keypoints in model (pixel) coordinates, shape (batch, num_keypoints, 2)
    """
    return norm_to_model(frame_to_norm(keypoints, bbox), model_width, model_height)


def model_to_frame(
    keypoints: Float[torch.Tensor, 'batch num_keypoints xy'],
    bbox: Float[torch.Tensor, 'batch xyhw'],
    model_width: float,
    model_height: float,
) -> Float[torch.Tensor, 'batch num_keypoints xy']:
    """Convert keypoints from model coordinates to frame coordinates.

    Composes two transformations: model → norm → frame.

    Args:
        keypoints: keypoints in model (pixel) coordinates, shape (batch, num_keypoints, 2)
        bbox: bounding boxes in [x, y, h, w] format, shape (batch, 4)
        model_width: width of the model's input image in pixels
        model_height: height of the model's input image in pixels

    Returns:
        keypoints in frame (pixel) coordinates, shape (batch, num_keypoints, 2)
    """
    return norm_to_frame(model_to_norm(keypoints, model_width, model_height), bbox)


def frame_to_model_batch(
    batch_dict: MultiviewHeatmapLabeledBatchDict,
    frame_keypoints: Float[torch.Tensor, 'batch num_views num_keypoints xy'],
) -> Float[torch.Tensor, 'batch num_views num_keypoints xy']:
    """Transform keypoints from frame coordinates to model coordinates.

    Reads image dimensions and bbox from ``batch_dict``; handles multi-view
    batches by processing each view independently.
    """
    batch_size, num_views, num_keypoints, _ = frame_keypoints.shape

    model_height = batch_dict['images'].shape[-2]
    model_width = batch_dict['images'].shape[-1]

    model_keypoints = frame_keypoints.clone()

    for v in range(num_views):
        bbox_slice = batch_dict['bbox'][:, 4 * v:4 * (v + 1)]  # (batch, 4)
        model_keypoints[:, v, :, :] = frame_to_model(
            frame_keypoints[:, v, :, :],
            bbox_slice,
            model_width,
            model_height,
        )

    return model_keypoints


def model_to_frame_batch(
    batch_dict: (
        HeatmapLabeledBatchDict
        | MultiviewHeatmapLabeledBatchDict
        | MultiviewUnlabeledBatchDict
        | UnlabeledBatchDict
    ),
    model_keypoints: Float[torch.Tensor, 'batch num_targets'],
    in_place: bool = True,
) -> Float[torch.Tensor, 'batch num_targets']:
    """Transform keypoints from model coordinates to frame coordinates.

    Reads image dimensions and bbox from ``batch_dict``; handles single-view
    and multi-view batches.
    """
    num_targets = model_keypoints.shape[1]
    num_keypoints = num_targets // 2
    # reshape from (batch, n_targets) to (batch, n_keypoints, 2), in x,y order
    if in_place:
        model_keypoints_ = model_keypoints.reshape((-1, num_keypoints, 2))
    else:
        model_keypoints_ = model_keypoints.clone().reshape((-1, num_keypoints, 2))
    # extract model image dimensions
    if 'images' in batch_dict.keys():
        img = batch_dict['images']  # type: ignore[typeddict-item]
        model_width = img.shape[-1]   # -1 dim is width "x"
        model_height = img.shape[-2]  # -2 dim is height "y"
    else:  # we have unlabeled dict, 'frames' instead of 'images'
        frames = batch_dict['frames']  # type: ignore[typeddict-item]
        model_width = frames.shape[-1]   # -1 dim is width "x"
        model_height = frames.shape[-2]  # -2 dim is height "y"
    # divide by model dims to get norm coordinates (in-place)
    model_keypoints_[:, :, 0] /= model_width
    model_keypoints_[:, :, 1] /= model_height
    # multiply and add by bbox dims to get frame coordinates, per view
    if (
        ('num_views' in batch_dict.keys() and int(batch_dict['num_views'].max()) > 1)  # type: ignore[typeddict-item]
        or batch_dict.get('is_multiview', False)
    ):
        # the first check is for labeled batches while is_multiview is for unlabeled batches
        # For MultiviewUnlabeledBatchDict, we need to infer num_views from bbox shape
        if 'num_views' in batch_dict.keys():
            unique = batch_dict['num_views'].unique()  # type: ignore[typeddict-item]
            if len(unique) != 1:
                raise ValueError(
                    f'each batch element must contain the same number of views; '
                    f'found elements with {unique} views'
                )
            num_views = int(unique)
        else:
            # infer from bbox shape: bbox has shape [seq_len, num_views * 4]
            num_views = batch_dict['bbox'].shape[1] // 4

        num_keypoints_per_view = num_keypoints // num_views

        for v in range(num_views):
            idx_beg = num_keypoints_per_view * v
            idx_end = idx_beg + num_keypoints_per_view
            bbox_slice = batch_dict['bbox'][:, 4 * v:4 * (v + 1)]
            model_keypoints_[:, idx_beg:idx_end, :] = norm_to_frame(
                model_keypoints_[:, idx_beg:idx_end, :],
                bbox_slice,
            )
    else:
        model_keypoints_ = norm_to_frame(model_keypoints_, batch_dict['bbox'])
    # return new keypoints, reshaped to (batch, num_targets)
    return model_keypoints_.reshape((-1, num_targets))


def slice_bbox_rows(bbox_df: pd.DataFrame, idx_start: int, seq_len: int) -> pd.DataFrame:
    """Select the bbox rows for one batch, padding a short final batch with the last row.

    Args:
        bbox_df: DataFrame with columns ``["x", "y", "h", "w"]``, one row per video frame.
        idx_start: index of the first frame in the batch.
        seq_len: number of frames in the batch.

    Returns:
        DataFrame with exactly ``seq_len`` rows, ready for :func:`crop_and_resize_frames`.
    """
    rows = bbox_df.iloc[idx_start:idx_start + seq_len]
    if len(rows) < seq_len:
        last_row = bbox_df.iloc[[-1]]
        rows = pd.concat([rows] + [last_row] * (seq_len - len(rows)), ignore_index=True)
    return rows


def crop_and_resize_frames(
    frames: Float[torch.Tensor, "seq_len rgb h w"],
    bbox_rows: pd.DataFrame,
    resize_dims: list[int],
) -> tuple[
    Float[torch.Tensor, "seq_len rgb h_out w_out"],
    Float[torch.Tensor, "seq_len xyhw"],
]:
    """Crop each frame to its per-frame bounding box and resize to a common size.

    Shared by all video-decoding backends: each hands this function a full-resolution ``frames``
    tensor plus one already-sliced-and-padded bbox row per frame. Row selection is done by
    :func:`slice_bbox_rows` (via :func:`crop_views`); the cursor/step bookkeeping that decides
    where a batch starts lives in each reader's wrapper, not here (see
    ``LitDaliWrapper._dali_output_to_tensors`` and ``LitPredictWrapperBase.__next__``).

    Args:
        frames: full-resolution frames, shape (seq_len, 3, H, W).
        bbox_rows: DataFrame with columns ``["x", "y", "h", "w"]``, exactly ``seq_len``
            rows, one per frame (already sliced/padded by the caller).
        resize_dims: target ``[height, width]`` to resize each crop to.

    Returns:
        Tuple of (cropped+resized frames, actual bbox coordinates used per frame).
        Bbox coordinates are clamped to frame bounds and may differ from the raw
        ``bbox_rows`` values for edge frames (see negative x/y handling below).
    """
    seq_len = frames.shape[0]
    frame_h, frame_w = frames.shape[2], frames.shape[3]
    cropped_frames = []
    bboxes = []
    for i in range(seq_len):
        row = bbox_rows.iloc[i]
        # clamp to frame bounds: create_bbox can produce negative x/y for edge frames
        # (centroid - bbox_size//2 < 0). negative pytorch slice indices count from the
        # end rather than clamping, producing an empty crop.
        x1 = max(0, int(row['x']))
        y1 = max(0, int(row['y']))
        x2 = max(x1 + 1, min(frame_w, int(row['x']) + int(row['w'])))
        y2 = max(y1 + 1, min(frame_h, int(row['y']) + int(row['h'])))
        frame_cropped = frames[i, :, y1:y2, x1:x2]
        frame_resized = F.interpolate(
            frame_cropped.unsqueeze(0),
            size=resize_dims,
            mode='bilinear',
            align_corners=False,
        ).squeeze(0)
        cropped_frames.append(frame_resized)
        bboxes.append(
            torch.tensor(
                [x1, y1, y2 - y1, x2 - x1], dtype=torch.float32, device=frames.device,
            )
        )
    return torch.stack(cropped_frames), torch.stack(bboxes)


def as_bbox_df_list(
    bbox_df: pd.DataFrame | list[pd.DataFrame] | None,
    num_views: int,
) -> list[pd.DataFrame] | None:
    """Normalize a video reader's ``bbox_df`` to a list with one DataFrame per view.

    Args:
        bbox_df: a single DataFrame (single-view), a list with one DataFrame per view
            (multiview), or None when no bbox cropping is configured.
        num_views: number of views in the batch being built (1 for single-view).

    Returns:
        list of per-view bbox DataFrames, or None if ``bbox_df`` is None.

    Raises:
        ValueError: if the number of DataFrames does not match ``num_views``.
    """
    if bbox_df is None:
        return None
    bbox_dfs = [bbox_df] if isinstance(bbox_df, pd.DataFrame) else list(bbox_df)
    if len(bbox_dfs) != num_views:
        raise ValueError(f'expected {num_views} bbox DataFrame(s), got {len(bbox_dfs)}')
    return bbox_dfs


def full_frame_bbox(
    height: int,
    width: int,
    seq_len: int,
    device: torch.device | str,
) -> Float[torch.Tensor, "seq_len xyhw"]:
    """Bbox covering an entire decoded frame (x=0, y=0, h=height, w=width), per frame.

    Args:
        height: height of the decoded (pre-resize) frame in pixels.
        width: width of the decoded (pre-resize) frame in pixels.
        seq_len: number of frames in the batch.
        device: device to create the tensor on.

    Returns:
        float32 tensor of shape (seq_len, 4) in [x, y, h, w] order.
    """
    return torch.tensor([0, 0, height, width], dtype=torch.float32, device=device).repeat(
        seq_len, 1,
    )


def crop_views(
    frames_list: list[torch.Tensor],
    bbox_dfs: list[pd.DataFrame],
    idx_start: int,
    resize_dims: list[int],
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Crop and resize each view of a batch to its own per-frame bboxes.

    Views are processed independently, so they may have different native resolutions; after
    the crop+resize every view has shape ``resize_dims`` and the results can be stacked.

    Args:
        frames_list: full-resolution frames, one tensor of shape (seq_len, 3, H, W) per view.
        bbox_dfs: one bbox DataFrame per view (columns ``["x", "y", "h", "w"]``, one row per
            video frame), in the same order as ``frames_list``.
        idx_start: video frame index of the first frame in this batch.
        resize_dims: target ``[height, width]`` to resize each crop to.

    Returns:
        Tuple of (cropped+resized frames per view, actual bbox coordinates used per view); each
        frames tensor has shape (seq_len, 3, *resize_dims) and each bbox tensor (seq_len, 4).
    """
    seq_len = frames_list[0].shape[0]
    cropped_list = []
    bbox_list = []
    for frames, bbox_df in zip(frames_list, bbox_dfs, strict=True):
        rows = slice_bbox_rows(bbox_df, idx_start, seq_len)
        cropped, bboxes = crop_and_resize_frames(frames, rows, resize_dims)
        cropped_list.append(cropped)
        bbox_list.append(bboxes)
    return cropped_list, bbox_list
