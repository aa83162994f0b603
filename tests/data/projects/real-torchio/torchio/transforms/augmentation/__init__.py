from .random_transform import RandomTransform

__all__ = [
    'RandomTransform',
]
