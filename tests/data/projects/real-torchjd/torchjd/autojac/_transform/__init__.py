from ._accumulate import AccumulateGrad, AccumulateJac
from ._base import Composition, Conjunction, RequirementError, Transform
from ._diagonalize import Diagonalize
from ._grad import Grad
from ._init import Init
from ._jac import Jac
from ._ordered_set import OrderedSet
from ._select import Select
from ._stack import Stack

__all__ = [
    "AccumulateGrad",
    "AccumulateJac",
    "Composition",
    "Conjunction",
    "Diagonalize",
    "Grad",
    "Init",
    "Jac",
    "OrderedSet",
    "RequirementError",
    "Select",
    "Stack",
    "Transform",
]
