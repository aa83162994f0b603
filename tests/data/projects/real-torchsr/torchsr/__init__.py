from . import models
from . import transforms
from . import datasets
