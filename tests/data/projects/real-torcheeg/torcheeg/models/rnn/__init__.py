from .gru import GRU
from .lstm import LSTM