from .dataset import ColPaliEngineDataset, Corpus
from .sampler import SingleDatasetBatchSampler
