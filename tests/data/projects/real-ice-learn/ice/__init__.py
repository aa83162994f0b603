import os
os.environ['PYTHONBREAKPOINT'] = "ice.set_trace"

import dill
dill.settings['byref'] = True

from .api import *