from . import data
from . import models
from . import utils
