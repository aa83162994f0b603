from . import optim
from . import analysis
