from . import urdf
from . import sdf
