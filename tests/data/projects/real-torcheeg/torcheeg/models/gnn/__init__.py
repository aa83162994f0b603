from .dgcnn import DGCNN
from .lggnet import LGGNet
from .gin import GIN
from .rgnn import RGNN