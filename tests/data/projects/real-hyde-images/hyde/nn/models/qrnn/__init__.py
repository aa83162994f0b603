from .qrnn3d import QRNNREDC3D
from .redc3d import REDC3D
from .resnet import ResQRNN3D
