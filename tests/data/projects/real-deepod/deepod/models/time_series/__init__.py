# unsupervised
from .dif import DeepIsolationForestTS
from .dsvdd import DeepSVDDTS
from .tranad import TranAD
from .usad import USAD
from .couta import COUTA
from .tcned import TcnED
from .anomalytransformer import AnomalyTransformer
from .timesnet import TimesNet

# weakly-supervised
from .dsad import DeepSADTS
from .devnet import DevNetTS
from .prenet import PReNetTS


__all__ = ['DeepIsolationForestTS', 'DeepSVDDTS', 'TranAD', 'USAD', 'COUTA',
           'DeepSADTS', 'DevNetTS', 'PReNetTS', 'AnomalyTransformer', 'TimesNet']
