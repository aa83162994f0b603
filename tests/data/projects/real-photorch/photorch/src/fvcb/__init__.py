from .fitaci import run as fit
from .fvcbmodels import allparameters
from .fvcbmodels import FvCB as model
from .initphotodata import initLicordata
from .evaluate import evaluateFvCB
