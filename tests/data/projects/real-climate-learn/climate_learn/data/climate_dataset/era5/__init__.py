from .constants import *
from .era5 import ERA5
