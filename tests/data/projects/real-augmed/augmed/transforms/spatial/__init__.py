from .affine import *
from .break_affine_chain import BreakAffineChain
from .elastic import Elastic, RandomElastic
from .spatial import RandomSpatialTransform, SpatialTransform
