from .distributions import *
