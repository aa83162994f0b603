from .interface import rebasin, randperm
from . import sdxl_sgm
