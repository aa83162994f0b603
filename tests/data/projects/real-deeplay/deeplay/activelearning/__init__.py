from .data import ActiveLearningDataset, JointDataset
from .strategies import *
from .criterion import (
    ActiveLearningCriterion,
    LeastConfidence,
    Margin,
    Entropy,
    L1Upper,
    L2Upper,
    SumCriterion,
    ProductCriterion,
    FractionCriterion,
    Constant,
)
