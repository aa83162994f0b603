from .build import SIMILARITY_REGISTRY, build_similarity
from .correlation import *
from .learnable_cost import *
