from . import download
from . import preprocess
from .collate import collate
from .dataset import Dataset
from .loader import loader
from .sampler import sampler
