from .hpo import *
from .transforms import *
from .utils import *
