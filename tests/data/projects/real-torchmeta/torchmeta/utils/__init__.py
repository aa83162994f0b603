from torchmeta.utils import data
from torchmeta.utils.gradient_based import gradient_update_parameters
from torchmeta.utils.metrics import hardness_metric
from torchmeta.utils.prototype import get_num_samples, get_prototypes, prototypical_loss
from torchmeta.utils.matching import pairwise_cosine_similarity, matching_log_probas, matching_probas, matching_loss
from torchmeta.utils.r2d2 import ridge_regression

__all__ = [
    'data',
    'gradient_update_parameters',
    'hardness_metric',
    'get_num_samples',
    'get_prototypes',
    'prototypical_loss',
    'pairwise_cosine_similarity',
    'matching_log_probas',
    'matching_probas',
    'matching_loss',
    'ridge_regression'
]
