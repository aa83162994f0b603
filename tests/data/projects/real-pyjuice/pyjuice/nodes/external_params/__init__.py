from .external_params import ExternalSumParams
from .lowrank import LowRankSumParams
from .block_scale import BlockScaleSumParams
