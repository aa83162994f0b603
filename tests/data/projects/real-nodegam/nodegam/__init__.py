from . import nn_utils
from . import odst
from . import utils
from . import data
from . import trainer
from . import recorder
from . import arch
from . import gams
from . import mypreprocessor
from . import vis_utils

