from dasp_pytorch.functional import (
    gain,
    stereo_bus,
    stereo_panner,
    stereo_widener,
    noise_shaped_reverberation,
    compressor,
    distortion,
    parametric_eq,
)

from dasp_pytorch.modules import (
    Processor,
    Compressor,
    ParametricEQ,
    NoiseShapedReverb,
    Gain,
    Distortion,
)
