from .random_affine import Affine
from .random_affine import RandomAffine
from .random_affine_elastic_deformation import AffineElasticDeformation
from .random_affine_elastic_deformation import RandomAffineElasticDeformation
from .random_anisotropy import RandomAnisotropy
from .random_elastic_deformation import ElasticDeformation
from .random_elastic_deformation import RandomElasticDeformation
from .random_flip import Flip
from .random_flip import RandomFlip

__all__ = [
    'RandomFlip',
    'Flip',
    'RandomAffine',
    'Affine',
    'RandomAnisotropy',
    'RandomElasticDeformation',
    'ElasticDeformation',
    'RandomAffineElasticDeformation',
    'AffineElasticDeformation',
]
