from ._coefficient import Coefficient
from ._lime import LimeTabular
from ._maple import Maple, TreeMaple
from ._random import Random
from ._treegain import TreeGain

__all__ = [
    "Coefficient",
    "LimeTabular",
    "Maple",
    "TreeMaple",
    "Random",
    "TreeGain",
]
