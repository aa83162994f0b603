from ._version import __version__
from .detector import RetinaFace
from .alignment import convert2dict