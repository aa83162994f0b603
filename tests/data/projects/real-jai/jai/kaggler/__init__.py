from .from_kagglers import *
from .kaggle_data import *
from .submitter import *