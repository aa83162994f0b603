from .copy import CopyTransform
from .equality_mask import EqualityMaskTransform
from .grouping import GroupTransform
from .negative_sampling import (
    GroupedUniformNegativeSamplingTransform,
    MultiClassNegativeSamplingTransform,
    UniformNegativeSamplingTransform,
)
from .next_token import NextTokenTransform
from .rename import RenameTransform
from .reshape import UnsqueezeTransform
from .select import SelectTransform
from .sequence_roll import SequenceRollTransform
from .token_mask import TokenMaskTransform
from .trim import AdaptiveTrimTransform, TargetAwareAdaptiveTrimTransform, TrimTransform

__all__ = [
    "AdaptiveTrimTransform",
    "CopyTransform",
    "EqualityMaskTransform",
    "GroupTransform",
    "GroupedUniformNegativeSamplingTransform",
    "MultiClassNegativeSamplingTransform",
    "NextTokenTransform",
    "RenameTransform",
    "SelectTransform",
    "SequenceRollTransform",
    "TargetAwareAdaptiveTrimTransform",
    "TokenMaskTransform",
    "TrimTransform",
    "UniformNegativeSamplingTransform",
    "UnsqueezeTransform",
]
