from .learners import (FairPredictor, inferred_attribute_builder, single_threshold, DataDict,
                       DeepFairPredictor, DeepDataDict)
from .utils import performance, group_metrics, conditional_group_metrics, dataset_loader

__all__ = (FairPredictor, inferred_attribute_builder, single_threshold, DataDict,
           performance, group_metrics, conditional_group_metrics, DeepFairPredictor, DeepDataDict, dataset_loader)
