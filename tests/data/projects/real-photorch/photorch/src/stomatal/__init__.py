from .initscdata import initscdata
from .stomatalmodels import BMF
from .stomatalmodels import BWB
# from .stomatalmodels import BBL
from .stomatalmodels import MED
from .fitstomatal import run as fit
from .evaluate import evaluateBMF