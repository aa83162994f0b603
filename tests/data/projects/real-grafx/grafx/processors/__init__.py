from . import core
from .container import DryWet, GainStagingRegularization, ParallelMix, SerialChain
from .delay import MultitapDelay
from .dynamics import ApproxCompressor  # soon to be deprecated
from .dynamics import ApproxNoiseGate  # soon to be deprecated
from .dynamics import Compressor, NoiseGate
from .eq import ZeroPhaseFIREqualizer  # soon to be deprecated
from .eq import GraphicEqualizer, NewZeroPhaseFIREqualizer, ParametricEqualizer
from .filter import (
    AllPassFilter,
    BandPassFilter,
    BandRejectFilter,
    BiquadFilter,
    FIRFilter,
    HighPassFilter,
    HighShelf,
    LowPassFilter,
    LowShelf,
    PeakingFilter,
    PoleZeroFilter,
    StateVariableFilter,
)
from .nonlinear import (
    ChebyshevDistortion,
    PiecewiseTanhDistortion,
    PowerDistortion,
    TanhDistortion,
)
from .reverb import FilteredNoiseShapingReverb, STFTMaskedNoiseReverb
from .stereo import (
    MidSideToStereo,
    MonoToStereo,
    SideGainImager,
    StereoGain,
    StereoToMidSide,
)
