from .model import NeuCodec, DistillNeuCodec, NeuCodecOnnxDecoder
