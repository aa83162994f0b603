from .batch_utils import feature_names, features_to_vector, flatten_features, stack_feature_vectors
from .normalization import minmax_normalize, zscore_normalize

__all__ = [
    'feature_names',
    'features_to_vector',
    'flatten_features',
    'stack_feature_vectors',
    'zscore_normalize',
    'minmax_normalize',
]
