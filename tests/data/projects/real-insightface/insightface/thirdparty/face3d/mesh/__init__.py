#from __future__ import absolute_import
#from cython import mesh_core_cython
#import io
#import vis
#import transform
#import light
#import render

from .cython import mesh_core_cython
from . import io
from . import vis
from . import transform
from . import light
from . import render

