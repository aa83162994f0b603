from .m2m100 import *
from . import m2m100, mbart50, nllb200
