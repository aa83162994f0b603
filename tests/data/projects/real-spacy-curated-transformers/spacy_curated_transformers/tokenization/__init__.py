from .bbpe_encoder import build_byte_bpe_encoder_loader_v1, build_byte_bpe_encoder_v1
from .char_encoder import build_char_encoder_loader_v1, build_char_encoder_v1
from .hf_loader import build_hf_piece_encoder_loader_v1
from .sentencepiece_encoder import (
    build_camembert_sentencepiece_encoder_v1,
    build_sentencepiece_encoder_loader_v1,
    build_sentencepiece_encoder_v1,
    build_xlmr_sentencepiece_encoder_v1,
)
from .wordpiece_encoder import (
    build_bert_wordpiece_encoder_v1,
    build_wordpiece_encoder_loader_v1,
    build_wordpiece_encoder_v1,
)
