# Copyright © 2023-2024 Apple Inc.

from .federated_dataset import (
    ArtificialFederatedDataset,
    FederatedDataset,
    FederatedDatasetBase,
    FederatedDatasetMixture,
)
from .partition import partition_by_dirichlet_class_distribution
from .sampling import (
    CrossSiloUserSampler,
    DirichletDataSampler,
    MinimizeReuseDataSampler,
    MinimizeReuseUserSampler,
    get_data_sampler,
    get_user_sampler,
)
