"""UltraMS spectrum encoder."""

from .inference import UltraMS, SpectrumEmbedding
from .finetune import UltraMSPredictor
from .spectra import read_mgf, read_mzml, read_spectra

__all__ = [
    "UltraMS",
    "SpectrumEmbedding",
    "UltraMSPredictor",
    "read_mgf",
    "read_mzml",
    "read_spectra",
]
