from .gcq import GCQ, GCQState, encode_and_decode
