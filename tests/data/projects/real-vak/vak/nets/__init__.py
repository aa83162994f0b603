from . import conv_encoder, ed_tcn, tweetynet
from .conv_encoder import ConvEncoder
from .ed_tcn import ED_TCN
from .tweetynet import TweetyNet

__all__ = [
    "conv_encoder",
    "ConvEncoder",
    "ed_tcn",
    "ED_TCN",
    "tweetynet",
    "TweetyNet",
]
