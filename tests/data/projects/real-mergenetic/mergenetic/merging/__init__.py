from .linear_merger import LinearMerger
from .slerp_merger import SlerpMerger
from .taskarithmetic_merger import TaskArithmeticMerger
from .ties_dare_merger import TiesDareMerger
