from deepod.models.tabular.dsvdd import DeepSVDD
from deepod.models.tabular.rca import RCA
from deepod.models.tabular.dsad import DeepSAD
from deepod.models.tabular.repen import REPEN
from deepod.models.tabular.neutral import NeuTraL
from deepod.models.tabular.dif import DeepIsolationForest
from deepod.models.tabular.slad import SLAD
from deepod.models.tabular.rdp import RDP
from deepod.models.tabular.feawad import FeaWAD
from deepod.models.tabular.devnet import DevNet
from deepod.models.tabular.prenet import PReNet
from deepod.models.tabular.goad import GOAD
from deepod.models.tabular.icl import ICL
from deepod.models.tabular.rosas import RoSAS

from deepod.models.time_series.prenet import PReNetTS
from deepod.models.time_series.dsad import DeepSADTS
from deepod.models.time_series.devnet import DevNetTS

from deepod.models.time_series.dif import DeepIsolationForestTS
from deepod.models.time_series.dsvdd import DeepSVDDTS

from deepod.models.time_series.timesnet import TimesNet
from deepod.models.time_series.anomalytransformer import AnomalyTransformer
from deepod.models.time_series.tranad import TranAD
from deepod.models.time_series.couta import COUTA
from deepod.models.time_series.usad import USAD
from deepod.models.time_series.tcned import TcnED


__all__ = [
    'RCA', 'DeepSVDD', 'GOAD', 'NeuTraL', 'RDP', 'ICL', 'SLAD', 'DeepIsolationForest',
    'DeepSAD', 'DevNet', 'PReNet', 'FeaWAD', 'REPEN', 'RoSAS',
    'TimesNet', 'AnomalyTransformer', 'TranAD', 'COUTA', 'USAD', 'TcnED',
    'DeepIsolationForestTS', 'DeepSVDDTS',
    'PReNetTS', 'DeepSADTS', 'DevNetTS'
]