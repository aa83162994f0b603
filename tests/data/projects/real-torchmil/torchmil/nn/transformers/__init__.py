from .encoder import Encoder as Encoder

from .layer import Layer as Layer

from .conventional_transformer import (
    TransformerLayer as TransformerLayer,
    TransformerEncoder as TransformerEncoder,
)

from .sm_transformer import (
    SmTransformerLayer as SmTransformerLayer,
    SmTransformerEncoder as SmTransformerEncoder,
)

from .nystrom_transformer import (
    NystromTransformerLayer as NystromTransformerLayer,
    NystromTransformerEncoder as NystromTransformerEncoder,
)

from .irpe_transformer import (
    iRPETransformerLayer as iRPETransformerLayer,
    iRPETransformerEncoder as iRPETransformerEncoder,
)

from .t2t import T2TLayer as T2TLayer
