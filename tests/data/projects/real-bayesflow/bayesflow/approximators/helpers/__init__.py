from .samplers import Sampler
from .conditions import ConditionBuilder
from .compositional import build_prior_score_fn
