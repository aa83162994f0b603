"""Models"""

from .fengwu_ghr.layers import (
    ImageMetaModel,
    LoRAModule,
    MetaModel,
    WrapperImageModel,
    WrapperMetaModel,
)
from .graphcast import GraphCast, GraphCastConfig
from .layers.assimilator_decoder import AssimilatorDecoder
from .layers.assimilator_encoder import AssimilatorEncoder
from .layers.decoder import Decoder
from .layers.encoder import Encoder
from .layers.processor import Processor
from .layers.stochastic_decomposition import StochasticDecompositionLayer
from .regional_forecast import RegionalForecaster, RegionalForecasterConfig
