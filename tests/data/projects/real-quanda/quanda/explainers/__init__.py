"""Training data attribution methods."""

from quanda.explainers import global_ranking, utils, wrappers
from quanda.explainers.base import Explainer
from quanda.explainers.functional import ExplainFunc, ExplainFuncMini
from quanda.explainers.random import RandomExplainer

__all__ = [
    "Explainer",
    "RandomExplainer",
    "ExplainFunc",
    "ExplainFuncMini",
    "utils",
    "wrappers",
    "global_ranking",
]
