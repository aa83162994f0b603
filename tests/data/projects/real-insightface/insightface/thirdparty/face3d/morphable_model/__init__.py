from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

from .. import mesh
from .morphabel_model import MorphabelModel
from . import load