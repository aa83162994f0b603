from .. import basics
from ..basics import *
from .learner import *
from .data import *
from .transform import *
from .models import *
from .. import text

__all__ =  [*basics.__all__, *learner.__all__, *data.__all__, *transform.__all__, *models.__all__, 'text']

