from .single_level_simulator import single_level_simulator
from .two_level_simulator import two_level_simulator
from .three_level_simulator import three_level_simulator
from .crossed_design_irt_simulator import crossed_design_irt_simulator

__all__ = ["single_level_simulator", "two_level_simulator", "three_level_simulator", "crossed_design_irt_simulator"]
