from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

from . import io
from . import vis
from . import transform
from . import light
from . import render

