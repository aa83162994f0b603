from torchmeta.toy.harmonic import Harmonic
from torchmeta.toy.sinusoid import Sinusoid
from torchmeta.toy.sinusoid_line import SinusoidAndLine

from torchmeta.toy import helpers

__all__ = ['Harmonic', 'Sinusoid', 'SinusoidAndLine', 'helpers']
