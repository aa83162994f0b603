from .utils import *
from .paper_utils import *
