from iTransformer.iTransformer import (
    iTransformer,
    RevIN
)

from iTransformer.iTransformer2D import iTransformer2D

from iTransformer.iTransformerFFT import iTransformerFFT
