# flake8: noqa

from catalyst.core import *
from catalyst.engines import *
from catalyst.loggers import *
from catalyst.runners import *
from catalyst.callbacks import *
