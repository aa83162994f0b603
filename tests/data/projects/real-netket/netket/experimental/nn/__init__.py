from . import rnn
