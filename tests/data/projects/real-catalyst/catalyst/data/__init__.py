# flake8: noqa
from catalyst.data.dataset import DatasetFromSampler, SelfSupervisedDatasetWrapper
from catalyst.data.loader import (
    ILoaderWrapper,
    BatchLimitLoaderWrapper,
    BatchPrefetchLoaderWrapper,
)
from catalyst.data.sampler import (
    BalanceClassSampler,
    BatchBalanceClassSampler,
    DistributedSamplerWrapper,
    DynamicBalanceClassSampler,
    MiniEpochSampler,
)

# from catalyst.contrib.data import *
