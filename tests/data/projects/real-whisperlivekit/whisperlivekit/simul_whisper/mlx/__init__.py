from .decoder_state import MLXDecoderState
from .decoders import MLXBeamSearchDecoder, MLXGreedyDecoder, MLXInference
from .simul_whisper import MLXAlignAtt

__all__ = [
    "MLXAlignAtt",
    "MLXBeamSearchDecoder",
    "MLXDecoderState",
    "MLXGreedyDecoder",
    "MLXInference",
]
