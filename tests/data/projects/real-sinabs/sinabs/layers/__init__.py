from .alif import ALIF, ALIFRecurrent
from .channel_shift import ChannelShift
from .crop2d import Cropping2dLayer
from .exp_leak import ExpLeak, ExpLeakSqueeze
from .iaf import IAF, IAFRecurrent, IAFSqueeze
from .lif import LIF, LIFRecurrent, LIFSqueeze
from .merge import Merge
from .neuromorphic_relu import NeuromorphicReLU
from .pool2d import SpikingMaxPooling2dLayer, SumPool2d
from .quantize import QuantizeLayer
from .reshape import FlattenTime, Repeat, SqueezeMixin, UnflattenTime
from .stateful_layer import StatefulLayer
from .to_spike import Img2SpikeLayer, Sig2SpikeLayer
