from lumiere_pytorch.lumiere import (
    ConvolutionInflationBlock,
    AttentionInflationBlock,
    TemporalDownsample,
    TemporalUpsample
)

from lumiere_pytorch.lumiere import Lumiere

from lumiere_pytorch.mp_lumiere import (
    MPLumiere,
    MPConvolutionInflationBlock,
    MPAttentionInflationBlock,
    MPTemporalDownsample,
    MPTemporalUpsample,
)
