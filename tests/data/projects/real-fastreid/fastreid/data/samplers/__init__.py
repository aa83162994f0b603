# encoding: utf-8
"""
@author:  liaoxingyu
@contact: sherlockliao01@gmail.com
"""

from .triplet_sampler import BalancedIdentitySampler, NaiveIdentitySampler, SetReWeightSampler
from .data_sampler import TrainingSampler, InferenceSampler
from .imbalance_sampler import ImbalancedDatasetSampler

__all__ = [
    "BalancedIdentitySampler",
    "NaiveIdentitySampler",
    "SetReWeightSampler",
    "TrainingSampler",
    "InferenceSampler",
    "ImbalancedDatasetSampler",
]
