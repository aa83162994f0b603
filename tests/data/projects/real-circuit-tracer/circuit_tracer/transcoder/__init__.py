from circuit_tracer.transcoder.single_layer_transcoder import (
    SingleLayerTranscoder,
    TranscoderSet,
    load_transcoder_set,
)

__all__ = ["SingleLayerTranscoder", "load_transcoder_set", "TranscoderSet"]
