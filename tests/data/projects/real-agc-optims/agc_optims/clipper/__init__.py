from .agc import AGC

