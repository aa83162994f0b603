"""
Expose all usable time-series imputation models.
"""

# Created by Wenjie Du <wenjay.du@gmail.com>
# License: BSD-3-Clause

from .brits import BRITS
from .csai import CSAI
from .csdi import CSDI
from .gpvae import GPVAE
from .mrnn import MRNN
from .saits import SAITS
from .transformer import Transformer
from .itransformer import iTransformer
from .nonstationary_transformer import NonstationaryTransformer
from .pyraformer import Pyraformer
from .timesnet import TimesNet
from .etsformer import ETSformer
from .fedformer import FEDformer
from .film import FiLM
from .frets import FreTS
from .crossformer import Crossformer
from .informer import Informer
from .autoformer import Autoformer
from .tcn import TCN
from .reformer import Reformer
from .dlinear import DLinear
from .patchtst import PatchTST
from .usgan import USGAN
from .scinet import SCINet
from .revinscinet import RevIN_SCINet
from .koopa import Koopa
from .micn import MICN
from .tide import TiDE
from .grud import GRUD
from .helix import HELIX
from .stemgnn import StemGNN
from .imputeformer import ImputeFormer
from .timemixer import TimeMixer
from .moderntcn import ModernTCN
from .segrnn import SegRNN
from .tefn import TEFN
from .trmf import TRMF
from .timellm import TimeLLM
from .gpt4ts import GPT4TS
from .moment import MOMENT
from .timemixerpp import TimeMixerPP
from .totem import TOTEM
from .tslanet import TSLANet
from .tkan import TKAN

# naive imputation methods
from .locf import LOCF
from .mean import Mean
from .median import Median
from .lerp import Lerp

__all__ = [
    # neural network imputation methods
    "SAITS",
    "Transformer",
    "iTransformer",
    "ETSformer",
    "FEDformer",
    "FiLM",
    "FreTS",
    "Crossformer",
    "TimesNet",
    "PatchTST",
    "DLinear",
    "Informer",
    "Autoformer",
    "TCN",
    "Reformer",
    "NonstationaryTransformer",
    "Pyraformer",
    "BRITS",
    "MRNN",
    "GPVAE",
    "USGAN",
    "CSDI",
    "SCINet",
    "RevIN_SCINet",
    "Koopa",
    "MICN",
    "TiDE",
    "GRUD",
    "HELIX",
    "StemGNN",
    "ImputeFormer",
    "TimeMixer",
    "ModernTCN",
    "TEFN",
    "CSAI",
    "SegRNN",
    "TRMF",
    "TimeLLM",
    "GPT4TS",
    "MOMENT",
    "TimeMixerPP",
    "TOTEM",
    "TSLANet",
    "TKAN",
    # naive imputation methods
    "LOCF",
    "Mean",
    "Median",
    "Lerp",
]
