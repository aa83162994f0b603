"""Main data classes."""

from toadstool.data.utils import SplitDataset, calc_batch_size, kfold_dataset, to_dataloader, to_dataloaders

__all__ = ['SplitDataset', 'calc_batch_size', 'kfold_dataset', 'to_dataloader', 'to_dataloaders']
