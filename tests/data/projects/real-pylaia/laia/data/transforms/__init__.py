from laia.data.transforms import text, vision
from laia.data.transforms.transforms import *
