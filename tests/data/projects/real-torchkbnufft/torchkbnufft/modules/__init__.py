from .kbinterp import KbInterp, KbInterpAdjoint
from .kbnufft import KbNufft, KbNufftAdjoint, ToepNufft
