from .normalization_transform import NormalizationTransform

__all__ = [
    'NormalizationTransform',
]
