from .wrapper import LeWrapper, LePreprocess
from .utils import *