from .utils import KrakenTrainer  # NOQA
from .vgsl import *  # NOQA
from .ppocr import *  # NOQA
from .blla import *  # NOQA
