from .nlocal import NLocal
from .two_local import TwoLocal
from .excitation_preserving import ExcitationPreserving
from .real_amplitudes import RealAmplitudes
from .efficient_su2 import EfficientSU2
from .pauli_two import PauliTwoDesign
