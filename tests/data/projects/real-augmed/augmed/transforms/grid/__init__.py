from .crop import Crop, RandomCrop
from .grid import RandomGridTransform, GridTransform
from .pad import Pad, RandomPad
from .resize import RandomResize, Resize
