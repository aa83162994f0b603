from torchmeta.utils.data.dataloader import MetaDataLoader, BatchMetaDataLoader
from torchmeta.utils.data.dataset import ClassDataset, MetaDataset, CombinationMetaDataset
from torchmeta.utils.data.sampler import CombinationSequentialSampler, CombinationRandomSampler
from torchmeta.utils.data.task import Dataset, Task, ConcatTask, SubsetTask
from torchmeta.utils.data.wrappers import NonEpisodicWrapper

__all__ = [
    'MetaDataLoader',
    'BatchMetaDataLoader',
    'ClassDataset',
    'MetaDataset',
    'CombinationMetaDataset',
    'CombinationSequentialSampler',
    'CombinationRandomSampler',
    'Dataset',
    'Task',
    'ConcatTask',
    'SubsetTask',
    'NonEpisodicWrapper'
]
