from .rrdb import RRDBNet
from .bise import BiSeNet
from .retinaface import RetinaFace
