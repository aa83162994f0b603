from .unimol_pka import UniMolPKAModel
from .transformer_encoder_with_pair import TransformerEncoderWithPair
from .unimol import UniMolModel

__all__ = ["TransformerEncoderWithPair", "UniMolModel", "UniMolPKAModel"]
