from .accelerator import GaudiAccelerator
from .state import GaudiAcceleratorState, GaudiPartialState
