from . import data, draw, processors, render, utils

# USE_FLASHFFTCONV = True
