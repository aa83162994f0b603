from vegans.utils.losses import *
from vegans.utils.plotting import *
from vegans.utils.processing import *