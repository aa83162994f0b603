from ._generators import (
    Multiband_iSTFT_Generator,
    Multistream_iSTFT_Generator,
    iSTFT_Generator,
)
from ._loss import subband_stft_loss
from ._pqmf import PQMF

__all__ = [
    "PQMF",
    "Multiband_iSTFT_Generator",
    "Multistream_iSTFT_Generator",
    "iSTFT_Generator",
    "subband_stft_loss",
]
