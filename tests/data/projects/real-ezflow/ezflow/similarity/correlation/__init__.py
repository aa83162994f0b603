from .layer import CorrelationLayer
from .pairwise import MutliScalePairwise4DCorr
from .sampler import IterSpatialCorrelationSampler
