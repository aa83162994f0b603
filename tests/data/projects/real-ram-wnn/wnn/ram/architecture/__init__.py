# --------------------------------------------------------------------
# Author: Luiz Alberto Crispiniano Garcia
# Toy Helpers:
# - KV Memory: Key-Value pairs with write and query.
# - Token Rotator: Cycling through token subsets for unbiased training.
#
# Requirements: torch
# --------------------------------------------------------------------

from .kvspec import KVSpec
from .token_rotator import TokenRotator, DatasetRotator, RotatorConfig
from .cached_evaluator import CachedEvaluator, CachedEvaluatorConfig
