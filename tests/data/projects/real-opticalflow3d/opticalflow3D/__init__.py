from __future__ import absolute_import, print_function

from .opticalflow3D import Farneback3D, PyrLK3D
from opticalflow3D import helpers