from .augmentor import FlowAugmentor, SparseFlowAugmentor
from .operations import *
