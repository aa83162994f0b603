from .model import (
    TransformerModel,
    FlashTransformerEncoderLayer,
    GeneEncoder,
    AdversarialDiscriminator,
    MVCDecoder,
)
from .generation_model import *
from .multiomic_model import MultiOmicTransformerModel
from .dsbn import *
from .grad_reverse import *
