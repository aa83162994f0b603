from .h5 import *
from .h5_to_db import export_to_colmap
from .h5_to_micmac import export_to_micmac
from .h5_to_openmvg import export_to_openmvg
