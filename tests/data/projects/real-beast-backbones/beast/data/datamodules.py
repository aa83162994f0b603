"""Data modules split a dataset into train, val, and test modules."""

import copy
import logging
import multiprocessing
import os
from typing import cast

import lightning.pytorch as pl
import numpy as np
import torch
from lightning.pytorch.utilities import rank_zero_only
from torch.utils.data import DataLoader, Subset, random_split

from beast.data.datasets import BaseDataset
from beast.data.samplers import ContrastBatchSampler, contrastive_collate_fn

_logger = logging.getLogger(__name__)


class BaseDataModule(pl.LightningDataModule):
    """Splits a labeled dataset into train, val, and test data loaders."""

    def __init__(
        self,
        dataset: BaseDataset,
        train_batch_size: int = 16,
        val_batch_size: int = 16,
        test_batch_size: int = 16,
        use_sampler: bool = False,
        num_workers: int | None = None,
        train_probability: float = 0.8,
        val_probability: float | None = None,
        test_probability: float | None = None,
        seed: int = 42,
    ) -> None:
        """Data module splits a dataset into train, val, and test data loaders.

        Parameters
        ----------
        dataset: base dataset to be split into train/val/test
        train_batch_size: number of samples of training batches
        val_batch_size: number of samples in validation batches
        test_batch_size: number of samples in test batches
        use_sampler: whether to use a sampler for the dataset
        num_workers: number of threads used for prefetching data
        train_probability: fraction of full dataset used for training
        val_probability: fraction of full dataset used for validation
        test_probability: fraction of full dataset used for testing
        seed: control data splits

        """
        super().__init__()
        self.dataset = dataset
        self.train_batch_size = train_batch_size
        self.val_batch_size = val_batch_size
        self.test_batch_size = test_batch_size
        self.use_sampler = use_sampler
        if num_workers is not None:
            self.num_workers = num_workers
        else:
            slurm_cpus = os.getenv('SLURM_CPUS_PER_TASK')
            if slurm_cpus:
                self.num_workers = int(slurm_cpus)
            else:
                # Fallback to os.cpu_count()
                self.num_workers = os.cpu_count() or 0
        self.train_probability = train_probability
        self.val_probability = val_probability
        self.test_probability = test_probability
        self.train_dataset: Subset | None = None  # populated by self.setup()
        self.val_dataset: Subset | None = None  # populated by self.setup()
        self.test_dataset: Subset | None = None  # populated by self.setup()
        self.seed = seed
        self.sampler = None

    def setup(self, stage: str | None = None) -> None:
        """Split dataset into train, val, and test subsets.

        Parameters
        ----------
        stage: Lightning stage string (unused; splits are always computed)

        """
        datalen = self.dataset.__len__()

        # split data based on provided probabilities
        data_splits_list = split_sizes_from_probabilities(
            datalen,
            train_probability=self.train_probability,
            val_probability=self.val_probability,
            test_probability=self.test_probability,
        )

        if self.dataset.imgaug_pipeline is None:
            if self.use_sampler:
                raise ValueError('Sampler cannot be used without augmentations')
            # no augmentations in the pipeline; subsets can share same underlying dataset
            self.train_dataset, self.val_dataset, self.test_dataset = random_split(
                self.dataset,
                data_splits_list,
                generator=torch.Generator().manual_seed(self.seed),
            )
        else:
            # augmentations in the pipeline; we want validation and test datasets that only resize
            # we can't simply change the imgaug pipeline in the datasets after they've been split
            # because the subsets actually point to the same underlying dataset, so we create
            # separate datasets here
            generator = torch.Generator().manual_seed(self.seed)
            if self.use_sampler:
                train_split, val_split, test_split = self._sequential_split(
                    range(len(self.dataset)), data_splits_list, generator=generator,
                )
                train_idxs = list(train_split)
                val_idxs = list(val_split)
                test_idxs = list(test_split)
            else:
                splits = random_split(self.dataset, data_splits_list, generator=generator)
                train_idxs = list(splits[0].indices)
                val_idxs = list(splits[1].indices)
                test_idxs = list(splits[2].indices)

            self.train_dataset = Subset(copy.deepcopy(self.dataset), indices=train_idxs)
            self.val_dataset = Subset(copy.deepcopy(self.dataset), indices=val_idxs)
            self.test_dataset = Subset(copy.deepcopy(self.dataset), indices=test_idxs)

            cast(BaseDataset, self.val_dataset.dataset).imgaug_pipeline = None
            cast(BaseDataset, self.test_dataset.dataset).imgaug_pipeline = None

        if rank_zero_only.rank == 0:
            _logger.info(
                f'Number of images in the full dataset (train+val+test): {datalen}\n'
                f'Dataset splits -- '
                f'train: {len(self.train_dataset)}, '
                f'val: {len(self.val_dataset)}, '
                f'test: {len(self.test_dataset)}'
            )

    @staticmethod
    def _sequential_split(
        idxs: range,
        split_sizes: list[int],
        generator=None,
    ) -> tuple[range, range, range]:
        """Create sequential splits: first portion for train, second for val, third for test.

        'generator' argument needed to match kwargs of random_split function

        """
        train_size, val_size, test_size = split_sizes

        # Calculate cumulative indices for sequential splitting
        train_end = train_size
        val_end = train_end + val_size
        test_end = val_end + test_size

        # Create sequential splits
        return idxs[:train_end], idxs[train_end:val_end], idxs[val_end:test_end]

    def train_dataloader(self) -> torch.utils.data.DataLoader:
        """Return the training data loader."""
        if self.train_dataset is None:
            raise RuntimeError('call setup() before train_dataloader()')
        if self.use_sampler:
            return _make_contrastive_dataloader(
                dataset=cast(BaseDataset, self.train_dataset),
                batch_size=self.train_batch_size,
                seed=self.seed,
                num_workers=self.num_workers,
                shuffle=True,
            )
        return DataLoader(
            self.train_dataset,
            batch_size=self.train_batch_size,
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            pin_memory=True,
            shuffle=True,
            generator=torch.Generator().manual_seed(self.seed),
            multiprocessing_context=multiprocessing.get_context(
                'spawn') if self.num_workers > 0 else None,
        )

    def val_dataloader(self) -> torch.utils.data.DataLoader:
        """Return the validation data loader."""
        if self.val_dataset is None:
            raise RuntimeError('call setup() before val_dataloader()')
        return DataLoader(
            self.val_dataset,
            batch_size=self.val_batch_size,
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            pin_memory=True,
            shuffle=False,
            multiprocessing_context=multiprocessing.get_context(
                'spawn') if self.num_workers > 0 else None,
        )

    def test_dataloader(self) -> torch.utils.data.DataLoader:
        """Return the test data loader."""
        if self.test_dataset is None:
            raise RuntimeError('call setup() before test_dataloader()')
        return DataLoader(
            self.test_dataset,
            batch_size=self.test_batch_size,
            num_workers=self.num_workers,
            pin_memory=True,
            shuffle=False,
            multiprocessing_context=multiprocessing.get_context(
                'spawn') if self.num_workers > 0 else None,
        )

    def full_labeled_dataloader(self) -> torch.utils.data.DataLoader:
        """Return a data loader over the full (unsplit) dataset."""
        return DataLoader(
            self.dataset,
            batch_size=self.val_batch_size,
            num_workers=self.num_workers,
        )


def _make_contrastive_dataloader(
    dataset: BaseDataset,
    batch_size: int,
    seed: int,
    num_workers: int,
    shuffle: bool = True,
) -> DataLoader:
    """Create a DataLoader backed by ContrastBatchSampler for contrastive pair sampling.

    IMPORTANT — why sampler= and not batch_sampler=:
    PyTorch's DataLoader has two ways to plug in a custom batch sampler:
      (a) batch_sampler=X  → PyTorch wraps it and sets dataloader.sampler
          = SequentialSampler(dataset)
      (b) sampler=X, batch_size=None  → dataloader.sampler IS X

    Lightning computes val_check_batch from len(dataloader.sampler).
    With (a), that length is len(dataset) which is far larger than the batches ContrastBatchSampler
    actually yields, so "end of epoch" trigger is never reached and validation silently never runs.
    With (b), len(dataloader.sampler) == ContrastBatchSampler.__len__(), which is the correct
    (conservative) number of batches.

    Do NOT change sampler= to batch_sampler= here.
    """
    sampler = ContrastBatchSampler(
        dataset=dataset,
        batch_size=batch_size,
        seed=seed,
        shuffle=shuffle,
    )
    return DataLoader(
        dataset,
        batch_size=None,  # ContrastBatchSampler yields full batches; do NOT use batch_sampler=
        sampler=sampler,
        collate_fn=contrastive_collate_fn,
        num_workers=num_workers,
        persistent_workers=num_workers > 0,
        pin_memory=True,
        generator=torch.Generator().manual_seed(seed),
        multiprocessing_context=multiprocessing.get_context('spawn') if num_workers > 0 else None,
    )


def split_sizes_from_probabilities(
    total_number: int,
    train_probability: float,
    val_probability: float | None = None,
    test_probability: float | None = None,
) -> list[int]:
    """Returns the number of examples for train, val and test given split probs.

    Parameters
    ----------
    total_number: total number of examples in dataset
    train_probability: fraction of examples used for training
    val_probability: fraction of examples used for validation
    test_probability: fraction of examples used for test. Defaults to None. Can be computed as the
        remaining examples.

    Returns
    -------
    [num training examples, num validation examples, num test examples]

    """

    if test_probability is None and val_probability is None:
        remaining_probability = 1.0 - train_probability
        # round each to 5 decimal places (issue with floating point precision)
        val_probability = round(remaining_probability / 2, 5)
        test_probability = round(remaining_probability / 2, 5)
    elif test_probability is None:
        if val_probability is None:
            raise RuntimeError('val_probability should have been set')
        test_probability = 1.0 - train_probability - val_probability

    if val_probability is None:
        raise RuntimeError('val_probability should have been set')
    if test_probability is None:
        raise RuntimeError('test_probability should have been set')

    # probabilities should add to one
    if test_probability + train_probability + val_probability != 1.0:
        raise ValueError(
            f'train, val, and test probabilities must sum to 1.0, '
            f'got {train_probability + val_probability + test_probability}'
        )

    # compute numbers from probabilities
    train_number = int(np.floor(train_probability * total_number))
    val_number = int(np.floor(val_probability * total_number))

    # if we lose extra examples by flooring, send these to train_number or test_number, depending
    leftover = total_number - train_number - val_number
    if leftover < 5:
        # very few samples, let's bulk up train
        train_number += leftover
        test_number = 0
    else:
        test_number = leftover

    # make sure that we have at least one validation sample
    if val_number == 0:
        train_number -= 1
        val_number += 1
        if train_number < 1:
            raise ValueError('Must have at least two labeled frames, one train and one validation')

    if train_number + test_number + val_number != total_number:
        raise RuntimeError(
            f'split sizes {train_number}, {val_number}, {test_number} '
            f'do not sum to total {total_number}'
        )

    return [train_number, val_number, test_number]
