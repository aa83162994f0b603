#!/usr/bin/env python3

# pyre-strict

from captum.influence._core.influence import DataInfluence
from captum.influence._core.influence_function import NaiveInfluenceFunction
from captum.influence._core.similarity_influence import SimilarityInfluence
from captum.influence._core.tracincp import TracInCP, TracInCPBase
from captum.influence._core.tracincp_fast_rand_proj import (
    TracInCPFast,
    TracInCPFastRandProj,
)

__all__ = [
    "DataInfluence",
    "SimilarityInfluence",
    "TracInCPBase",
    "TracInCP",
    "TracInCPFast",
    "TracInCPFastRandProj",
    "NaiveInfluenceFunction",
]
