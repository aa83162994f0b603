from .megadepth import MegadepthBuilder
from .scannet import ScanNetBuilder