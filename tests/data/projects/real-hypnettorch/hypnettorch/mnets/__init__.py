from .mnet_interface import MainNetInterface
from .classifier_interface import Classifier

from .bio_conv_net import BioConvNet
from .bi_rnn import BiRNN
from .chunk_squeezer import ChunkSqueezer
from .lenet import LeNet
from .mlp import MLP
from .resnet import ResNet
from .resnet_imgnet import ResNetIN
from .simple_rnn import SimpleRNN
from .wide_resnet import WRN
from .zenkenet import ZenkeNet
