from .single_level_approximator import single_level_approximator
from .two_level_approximator import two_level_approximator
from .three_level_approximator import three_level_approximator
from .crossed_design_irt_approximator import crossed_design_irt_approximator

__all__ = [
    "single_level_approximator",
    "two_level_approximator",
    "three_level_approximator",
    "crossed_design_irt_approximator",
]
