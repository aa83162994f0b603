import numpy as np
from dataclasses import dataclass
from typing import Optional, Dict


@dataclass
class SegmentationResult:
    """Container for segmentation results."""
    loc_segments: np.ndarray
    loc_valid: np.ndarray
    center_frames: np.ndarray
    n_segments: int
    out_dict: Optional[Dict] = None


def _choice_function(random_state):
    """``choice(a, size)`` without replacement, drawn from `random_state`.

    None keeps NumPy's global random state, which every release before 1.2
    used, so an unseeded run picks exactly the localizations it always did. An
    int seeds a new Generator; a Generator is used as given.
    """
    if random_state is None:
        return lambda a, size: np.random.choice(a, size, replace=False)
    if isinstance(random_state, np.random.Generator):
        generator = random_state
    else:
        generator = np.random.default_rng(random_state)
    return lambda a, size: generator.choice(a, size, replace=False)


def _group_by_frame(loc_frames: np.ndarray):
    """Returns a dict {frame_number: indices_in_loc_frames} efficiently."""
    sort_idx = np.argsort(loc_frames)
    sorted_frames = loc_frames[sort_idx]
    unique_frames, start_idx, counts = np.unique(sorted_frames, return_index=True, return_counts=True)
    frame_to_indices = {
        frame: sort_idx[start:start + count]
        for frame, start, count in zip(unique_frames, start_idx, counts)
    }
    return unique_frames, frame_to_indices


def segment_by_num_locs_per_window(loc_frames: np.ndarray, min_n_locs_per_window: int,
                                   max_locs_per_segment = None,
                                   return_param_dict: bool = False,
                                   random_state=None) -> SegmentationResult:
    """
    Segments by collecting a minimum number of localizations per window.
    Once the threshold is met and enough locs remain, a new segment is created.
    This method ensures that each segment has at least `min_n_locs_per_window` localizations,
    while also trying to avoid creating segments that are too small at the end of the dataset.
    If `max_locs_per_segment` is set, a random subset of that size is chosen from each segment.
    This method is particularly useful for datasets with varying localization densities over time.
    Parameters:
    loc_frames (np.ndarray): Array of frame numbers for each localization.
    min_n_locs_per_window (int): Minimum number of localizations per segment.
    max_locs_per_segment (Optional[int]): Maximum number of localizations per segment. If None, all locs are used.
    return_param_dict (bool): Whether to return a dictionary of segmentation parameters.
    random_state (None, int or Generator): Source of the random subset chosen when
        `max_locs_per_segment` caps a segment. None uses NumPy's global state.
    Returns:
    SegmentationResult: A dataclass containing segmentation results and parameters.
    """
    choice = _choice_function(random_state)
    loc_frames = np.asarray(loc_frames, dtype=int)
    n_locs = len(loc_frames)

    if max_locs_per_segment is not None and max_locs_per_segment < 1:  # downsampling in percentage
        max_locs_per_segment = int(min_n_locs_per_window * max_locs_per_segment)

    # Localizations sorted by frame, and each frame's run in that order. A
    # segment is a run of consecutive frames, so it is a contiguous range of
    # sorted positions; nothing here is quadratic in the number of segments.
    sort_idx = np.argsort(loc_frames)
    unique_frames, frame_starts, frame_counts = np.unique(loc_frames[sort_idx], return_index=True,
                                                          return_counts=True)
    loc_segments = np.full(n_locs, -1, dtype=int)  # Default to -1 for safety
    segment_ranges = []  # (first, stop) sorted positions per segment
    start_frames, end_frames = [], []
    n_assigned = 0          # localizations already in closed segments
    current_first = 0       # sorted position where the open segment starts
    n_in_current = 0
    last_frame_index = len(unique_frames) - 1

    for i in range(len(unique_frames)):
        n_this_frame = int(frame_counts[i])
        remaining_locs = n_locs - (n_in_current + n_this_frame + n_assigned)

        # Close the segment with this frame if:
        # - it fills the segment to the threshold
        # - AND there are enough locs left for another segment (or it's the last frame)
        n_in_current += n_this_frame
        if n_in_current >= min_n_locs_per_window and \
                (remaining_locs >= min_n_locs_per_window or i == last_frame_index):
            stop = int(frame_starts[i]) + n_this_frame
            segment_ranges.append((current_first, stop))
            n_assigned += n_in_current
            current_first = stop
            n_in_current = 0
        # otherwise the frame is deferred to the open segment

    n_segments = len(segment_ranges)
    center_frames = np.zeros(n_segments)
    loc_valid = np.zeros(n_locs, dtype=bool)
    locs_per_segment = []

    for k, (first, stop) in enumerate(segment_ranges):
        # ascending, as np.where gave it: the random subset depends on the order
        segment_indices = np.sort(sort_idx[first:stop])
        loc_segments[segment_indices] = k
        start_frames.append(loc_frames[sort_idx[first]])
        end_frames.append(loc_frames[sort_idx[stop - 1]])
        if max_locs_per_segment and len(segment_indices) > max_locs_per_segment:
            selected = choice(segment_indices, max_locs_per_segment)
        else:
            selected = segment_indices
        loc_valid[selected] = True
        locs_per_segment.append(len(selected))
        center_frames[k] = np.mean(loc_frames[selected])

    out_dict = None
    if return_param_dict:
        n_locs_valid = loc_valid.sum()
        out_dict = {
            "n_segments": n_segments,
            "min_n_locs_per_window": min_n_locs_per_window,
            "frames_per_window": -1,
            "start_frames": np.array(start_frames),
            "end_frames": np.array(end_frames),
            "locs_per_segment": np.array(locs_per_segment),
            "n_locs": n_locs,
            "n_locs_valid": n_locs_valid,
            "n_locs_invalid": n_locs - n_locs_valid,
            "center_frames": center_frames
        }

    return SegmentationResult(loc_segments, loc_valid, center_frames, n_segments, out_dict)


def segment_by_frame_windows(loc_frames: np.ndarray, n_frames_per_window: int,
                             max_locs_per_segment = None,
                             return_param_dict: bool = False,
                             random_state=None) -> SegmentationResult:
    """
    Splits localization data into fixed-size windows of N frames.
    All localizations in those frames are grouped into one segment.
    Only frames that contain localizations are counted.
    """
    choice = _choice_function(random_state)
    loc_frames = np.asarray(loc_frames, dtype=int)
    frames, frame_to_indices = _group_by_frame(loc_frames)
    n_locs = len(loc_frames)
    n_segments = int(np.ceil(len(frames) / n_frames_per_window))

    if max_locs_per_segment is not None and max_locs_per_segment < 1:  # downsampling in percentage
        # a whole number: it is used as a sample size below
        max_locs_per_segment = int(n_locs / n_segments * max_locs_per_segment)

    loc_segments = np.zeros(n_locs, dtype=int)
    center_frames = np.zeros(n_segments)
    loc_valid = np.ones(n_locs, dtype=bool)
    start_frames, end_frames, locs_per_segment = [], [], []

    for i in range(n_segments):
        frame_window = frames[i * n_frames_per_window:(i + 1) * n_frames_per_window]
        indices = np.concatenate([frame_to_indices[frame] for frame in frame_window if frame in frame_to_indices])
        if len(indices) == 0:
            continue
        loc_segments[indices] = i
        start_frames.append(frame_window[0])
        end_frames.append(frame_window[-1])
        center_frames[i] = np.mean(loc_frames[indices])
        locs_per_segment.append(len(indices))
        if max_locs_per_segment and len(indices) > max_locs_per_segment:
            mask = np.ones(len(indices), dtype=bool)
            mask[choice(len(indices), len(indices) - max_locs_per_segment)] = False
            loc_valid[indices[~mask]] = False

    out_dict = None
    if return_param_dict:
        n_locs_valid = loc_valid.sum()
        out_dict = {
            "n_segments": n_segments,
            "min_n_locs_per_window": -1,
            "frames_per_window": n_frames_per_window,
            "start_frames": np.array(start_frames),
            "end_frames": np.array(end_frames),
            "locs_per_segment": np.array(locs_per_segment),
            "n_locs": n_locs,
            "n_locs_valid": n_locs_valid,
            "n_locs_invalid": n_locs - n_locs_valid,
            "center_frames": center_frames
        }

    return SegmentationResult(loc_segments, loc_valid, center_frames, n_segments, out_dict)


def segment_by_num_windows(loc_frames: np.ndarray, n_windows: int, max_locs_per_segment = None,
                           return_param_dict: bool = False, random_state=None) -> SegmentationResult:
    """
        Converts number of windows into an equivalent minimum locs per window,
        then calls `segment_by_num_locs_per_window`.
    """
    n_locs = len(loc_frames)
    n_locs_per_window = int(np.ceil(n_locs / n_windows))
    if max_locs_per_segment is not None and max_locs_per_segment < 1: # downsampling in percentage
        max_locs_per_segment = int(n_locs_per_window * max_locs_per_segment)
    return segment_by_num_locs_per_window(loc_frames, n_locs_per_window, max_locs_per_segment, return_param_dict,
                                          random_state=random_state)


def segmentation_wrapper(loc_frames: np.ndarray, segmentation_var: int, segmentation_mode: int = 2,
                         max_locs_per_segment = None,
                         return_param_dict: bool = False, random_state=None) -> SegmentationResult:
    """
        Dispatch function that selects segmentation method:
        0 → fixed number of windows
        1 → fixed number of localizations per window
        2 → fixed number of frames per window (default)

        `random_state` seeds the subset chosen when `max_locs_per_segment` caps a
        segment; None keeps NumPy's global random state.
    """
    if segmentation_mode == 0:
        return segment_by_num_windows(loc_frames, segmentation_var, max_locs_per_segment, return_param_dict,
                                      random_state=random_state)
    elif segmentation_mode == 1:
        return segment_by_num_locs_per_window(loc_frames, segmentation_var, max_locs_per_segment, return_param_dict,
                                              random_state=random_state)
    else:
        return segment_by_frame_windows(loc_frames, segmentation_var, max_locs_per_segment, return_param_dict,
                                        random_state=random_state)
