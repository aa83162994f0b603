r"""Transforms package."""
from .base_transform import BaseTransform
from .fittable_base_transform import FittableBaseTransform
from .cat_to_num_transform import CatToNumTransform
from .mutual_information_sort import MutualInformationSort

__all__ = functions = [
    'BaseTransform',
    'FittableBaseTransform',
    'CatToNumTransform',
    'MutualInformationSort',
]
