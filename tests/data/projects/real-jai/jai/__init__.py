from .arch import *
from .trainer import *
from .dataset import *
from .improc import *
from jai.kaggler.kaggle_data import *
from .logger import *
import jai.sota
import jai.kaggler


