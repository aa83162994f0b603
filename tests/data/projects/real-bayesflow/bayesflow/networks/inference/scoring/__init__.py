from .point_network import PointNetwork
from .scoring_rule_network import ScoringRuleNetwork

from . import scoring_rules
from .scoring_rules import (
    ScoringRule,
    MeanScore,
    MedianScore,
    QuantileScore,
    MvNormalScore,
    MixtureScore,
    NormedDifferenceScore,
    CrossEntropyScore,
)

__all__ = ["scoring_rules", "ScoringRuleNetwork", "PointNetwork"]
