from neps.space.domain import Domain
from neps.space.encoding import ConfigEncoder
from neps.space.parameters import (
    HPOCategorical,
    HPOConstant,
    HPOFloat,
    HPOInteger,
    Parameter,
)
from neps.space.search_space import SearchSpace

__all__ = [
    "ConfigEncoder",
    "Domain",
    "HPOCategorical",
    "HPOConstant",
    "HPOFloat",
    "HPOInteger",
    "Parameter",
    "SearchSpace",
]
