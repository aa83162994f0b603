from .causal_conv import *  # NOQA
from .pqmf import *  # NOQA
from .residual_block import *  # NOQA
from .residual_stack import *  # NOQA
from .sine import *  # NOQA
from .tade_res_block import *  # NOQA
from .upsample import *  # NOQA
from .vector_quantize_codebook import *  # NOQA
