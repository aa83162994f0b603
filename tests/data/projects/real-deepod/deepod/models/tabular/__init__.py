from .rca import RCA
from .dsvdd import DeepSVDD
from .dsad import DeepSAD
from .devnet import DevNet
from .prenet import PReNet
from .feawad import FeaWAD
from .repen import REPEN
from .goad import GOAD
from .rca import RCA
from .rdp import RDP
from .icl import ICL
from .slad import SLAD
from .neutral import NeuTraL
from .dif import DeepIsolationForest
from .rosas import RoSAS

__all__ = ['RCA', 'DeepSVDD', 'DeepSAD', 'DevNet', 'PReNet', 'FeaWAD',
           'REPEN', 'GOAD', 'NeuTraL', 'RDP', 'ICL', 'SLAD', 'DeepIsolationForest', 'RoSAS']