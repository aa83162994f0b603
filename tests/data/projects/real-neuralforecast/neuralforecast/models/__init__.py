__all__ = ['RNN', 'GRU', 'LSTM', 'TCN', 'DeepAR', 'DilatedRNN',
           'MLP', 'NHITS', 'NBEATS', 'NBEATSx', 'DLinear', 'NLinear',
           'TFT', 'VanillaTransformer', 'Informer', 'Autoformer', 'PatchTST', 'FEDformer',
           'StemGNN', 'HINT', 'TimesNet', 'TimeLLM', 'TSMixer', 'TSMixerx', 'MLPMultivariate',
           'iTransformer', 'BiTCN', 'TiDE', 'DeepNPTS', 'SOFTS', 'SOFTSSharp', 'TimeMixer', 'KAN', 'RMoK',
           'TimeXer', 'xLSTM', 'XLinear'
           ]

from .rnn import RNN
from .gru import GRU
from .lstm import LSTM
from .tcn import TCN
from .deepar import DeepAR
from .dilated_rnn import DilatedRNN
from .mlp import MLP
from .nhits import NHITS
from .nbeats import NBEATS
from .nbeatsx import NBEATSx
from .dlinear import DLinear
from .nlinear import NLinear
from .tft import TFT
from .stemgnn import StemGNN
from .vanillatransformer import VanillaTransformer
from .informer import Informer
from .autoformer import Autoformer
from .fedformer import FEDformer
from .patchtst import PatchTST
from .hint import HINT
from .timesnet import TimesNet
from .timellm import TimeLLM
from .tsmixer import TSMixer
from .tsmixerx import TSMixerx
from .mlpmultivariate import MLPMultivariate
from .itransformer import iTransformer
from .bitcn import BiTCN
from .tide import TiDE
from .deepnpts import DeepNPTS
from .softs import SOFTS
from .softssharp import SOFTSSharp
from .timemixer import TimeMixer
from .kan import KAN
from .rmok import RMoK
from .timexer import TimeXer
from .xlstm import xLSTM
from .xlinear import XLinear
