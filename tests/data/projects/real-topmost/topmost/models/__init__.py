from .basic.ProdLDA import ProdLDA
from .basic.CombinedTM import CombinedTM
from .basic.DecTM import DecTM
from .basic.ETM import ETM
from .basic.NSTM.NSTM import NSTM
from .basic.TSCTM.TSCTM import TSCTM
from .basic.ECRTM.ECRTM import ECRTM

from .crosslingual.NMTM import NMTM
from .crosslingual.InfoCTM.InfoCTM import InfoCTM

from .dynamic.DETM import DETM
from .dynamic.CFDTM.CFDTM import CFDTM

from .hierarchical.SawETM.SawETM import SawETM
from .hierarchical.HyperMiner.HyperMiner import HyperMiner
from .hierarchical.TraCo.TraCo import TraCo
