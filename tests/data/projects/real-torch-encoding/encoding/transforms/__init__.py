from .transforms import *
from .get_transform import get_transform
