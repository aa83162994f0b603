"""Custom batch samplers for contrastive learning with temporally adjacent frame pairs."""

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import Sampler


def extract_anchor_indices(
    image_list: Sequence[str | Path],
    idx_offset: int = 1,
) -> tuple[list[int], dict[int, list[int]]]:
    """Extract anchor indices from image paths that have valid neighboring frames.

    Args:
        image_list: list of image paths
        idx_offset: frame number offset used to define a valid neighbor

    Returns:
        tuple of (anchor_indices, pos_indices) where anchor_indices is the list of dataset
        indices that have at least one valid neighbor, and pos_indices maps each anchor index
        to its list of valid neighbor indices
    """
    anchor_indices = []
    pos_indices = {}

    # Parse each image path to extract video and frame information
    frame_info = []
    for idx, img_path in enumerate(image_list):
        path = Path(img_path)
        # Extract video name (parent directory) and frame number from filename
        video_name = path.parent.name
        # Try to extract frame number from filename
        # (assuming format like frame001.png, 001.png, etc.)
        frame_match = re.search(r'(\d+)', path.stem)
        if frame_match:
            frame_num = int(frame_match.group(1))
            frame_info.append({
                'idx': idx,
                'video': video_name,
                'frame_num': frame_num,
                'path': path
            })

    # Sort by video and frame number
    frame_info.sort(key=lambda x: (x['video'], x['frame_num']))

    # Find frames that have valid neighbors (same video, consecutive frame numbers)
    for i, frame in enumerate(frame_info):
        # Check if previous frame exists and is from same video
        has_prev = (
            i > 0 and
            frame_info[i-1]['video'] == frame['video'] and
            frame_info[i-1]['frame_num'] == frame['frame_num'] - idx_offset
        )

        # Check if next frame exists and is from same video
        has_next = (
            i < len(frame_info) - 1 and
            frame_info[i+1]['video'] == frame['video'] and
            frame_info[i+1]['frame_num'] == frame['frame_num'] + idx_offset
        )

        # Add to anchor indices if it has at least one valid neighbor
        if has_prev or has_next:
            anchor_indices.append(frame['idx'])
            pos = []
            if has_prev:
                pos.append(frame_info[i-1]['idx'])
            if has_next:
                pos.append(frame_info[i+1]['idx'])
            if len(pos) > 0:
                pos_indices[frame['idx']] = pos
    # return the indices in sorted order
    anchor_indices.sort()
    return anchor_indices, pos_indices


class ContrastBatchSampler(Sampler):
    """
    Custom batch sampler:
      - Each batch is exactly `batch_size = N` clips.
      - For each reference index i, we pick exactly one i_p from i +/- idx_offset
        (and skip if none are valid).
      - The rest of the clips in that batch are chosen from "far away" indices.
    The __len__ of this sampler is #batches, i.e. total_clips // batch_size.

    Distributed training notes:
      This sampler is used with ``use_distributed_sampler=False`` in the Lightning Trainer,
      which means Lightning will NOT wrap it with a DistributedSampler. As a consequence:

      - The ``dataset`` passed in is always the full (unsharded) train dataset — every DDP
        process receives a complete copy of it.
      - This sampler is responsible for all rank-aware partitioning. On each DDP process,
        ``__init__`` reads ``torch.distributed.get_world_size()`` and
        ``torch.distributed.get_rank()`` (falling back to 1/0 when not initialized) to
        determine its slice of the anchor index pool, and ``__iter__`` only yields batches
        from that slice.
      - Because Lightning calls ``train_dataloader()`` on each DDP process *after*
        ``torch.distributed.init_process_group()`` has run, the rank/world_size values
        seen in ``__init__`` are always correct at the time of construction.
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        idx_offset: int = 1,
        shuffle: bool = True,
        seed: int = 42,
    ) -> None:
        """Initialize sampler and pre-compute valid anchor/positive index pairs.

        Parameters
        ----------
        dataset: training dataset subset (must expose .indices and .dataset.image_list)
        batch_size: number of samples per batch; must be even
        idx_offset: frame number offset used to define valid positive pairs
        shuffle: whether to shuffle anchor indices each epoch
        seed: base random seed; combined with epoch number for per-epoch shuffling

        """
        super().__init__()

        # Get distributed training info
        if torch.distributed.is_initialized():
            self.num_replicas = torch.distributed.get_world_size()
            self.rank = torch.distributed.get_rank()
        else:
            self.num_replicas = 1
            self.rank = 0

        if batch_size % 2 != 0:
            raise ValueError('Batch size must be even to form (ref, pos) pairs.')

        self.dataset = dataset
        self.batch_size = batch_size
        self.idx_offset = idx_offset
        self.shuffle = shuffle
        self.num_samples = len(dataset)  # total number of clips

        # Extract anchors only from the subset's image list (subset = train/val/test)
        self.dataset_indices = sorted(dataset.indices)
        subset_image_list = [dataset.dataset.image_list[i] for i in self.dataset_indices]
        self.all_anchor_indices, self.pos_indices = extract_anchor_indices(
            subset_image_list, idx_offset=self.idx_offset,
        )
        self.anchor_indices = None  # assigned in __iter__

        # Each selected pair marks the anchor + all its neighbors as used (~3 frames
        # consumed per pair). Dividing by batch_size (not batch_size // 2) provides
        # the extra margin needed so __len__ is guaranteed <= actual batches produced
        # by __iter__, which is required for Lightning to trigger is_last_batch.
        anchors_per_replica = len(self.all_anchor_indices) // self.num_replicas
        self.num_batches = anchors_per_replica // 3 // self.batch_size

        self.epoch = 0
        self.seed = seed

    def __iter__(self) -> Iterator[list[int]]:
        """Yield batches of (reference, positive) index pairs for one epoch."""
        self.epoch += 1

        # Reshuffle ALL anchor indices with epoch-specific seed
        # This ensures different shuffling each epoch while maintaining reproducibility
        if self.shuffle:
            rng = np.random.RandomState(self.seed + self.epoch)
            anchor_indices_ = self.all_anchor_indices.copy()
            rng.shuffle(anchor_indices_)
        else:
            anchor_indices_ = self.all_anchor_indices.copy()

        # NOW distribute the reshuffled indices across replicas
        indices_per_replica = len(anchor_indices_) // self.num_replicas
        start_idx = self.rank * indices_per_replica
        end_idx = start_idx + indices_per_replica

        # Handle remainder indices for the last replica
        if self.rank == self.num_replicas - 1:
            end_idx = len(anchor_indices_)

        # Get this replica's subset of anchor indices for this epoch
        anchor_indices = anchor_indices_[start_idx:end_idx]
        self.anchor_indices = anchor_indices  # for testing and debugging

        used = set()
        batches_returned = 0
        idx_cursor = 0

        while batches_returned < self.num_batches:
            batch = []
            # Keep pairing up references and positives until we have batch_size
            while len(batch) < self.batch_size:
                # Find next unused anchor
                while (
                    idx_cursor < len(anchor_indices)
                    and anchor_indices[idx_cursor] in used
                ):
                    idx_cursor += 1

                if idx_cursor >= len(anchor_indices):
                    break

                i = anchor_indices[idx_cursor]

                # Find valid positive indices
                valid_positives = [
                    p for p in self.pos_indices[i]
                    if p in self.dataset_indices and p not in used
                ]

                if not valid_positives:
                    used.add(i)  # Mark this anchor as used even if no valid positives
                    idx_cursor += 1
                    continue

                # Choose random positive
                i_p = np.random.choice(valid_positives)

                batch.extend([i, i_p])
                used.update(self.pos_indices[i])
                used.add(i)

                idx_cursor += 1
                if idx_cursor >= len(anchor_indices):
                    break

            # If we failed to get a full batch size, then drop or return partial
            if len(batch) < self.batch_size:
                break

            # return the batch
            yield batch
            batches_returned += 1

    def __len__(self) -> int:
        """Return the number of batches this sampler will yield per epoch."""
        return self.num_batches


def contrastive_collate_fn(batch_of_dicts: list[dict]) -> dict[str, torch.Tensor]:
    """Collate a contrastive batch into a single dict of stacked tensors.

    Assumes even-indexed items are reference frames and odd-indexed items are positives.

    Args:
        batch_of_dicts: list of dicts returned by BaseDataset.__getitem__

    Returns:
        dict with keys 'image' (all frames stacked: refs then positives) and 'idx' (frame indices)
    """
    refs = []
    pos = []

    ref_idx = []
    pos_idx = []
    for i, sample in enumerate(batch_of_dicts):
        if i % 2 == 0:
            refs.append(sample["image"])
            ref_idx.append(sample["idx"])
        else:
            # Assuming 'ref' key is used for both since __getitem__ returns only 'ref'
            pos.append(sample["image"])
            pos_idx.append(sample["idx"])

    all_data = torch.cat([torch.stack(refs), torch.stack(pos)], dim=0)
    all_idx = torch.cat([torch.tensor(ref_idx), torch.tensor(pos_idx)], dim=0)
    return {'image': all_data, 'idx': all_idx}
