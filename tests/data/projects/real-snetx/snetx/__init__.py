from . import dataset
from . import models
from . import snn
from . import utils