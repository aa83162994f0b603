from .base_modules import *
from .spatial_transform import *
