from decoder.pretrained import WavTokenizer


__version__ = "0.0.3"
