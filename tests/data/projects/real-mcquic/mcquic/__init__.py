__version__ = "0.1.40"
from mcquic.consts import Consts
from mcquic.config import Config
