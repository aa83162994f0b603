'''Zennit top-level __init__.'''
from . import attribution
from . import canonizers
from . import cmap
from . import composites
from . import core
from . import image
from . import layer
from . import rules
from . import torchvision
from . import types


__all__ = [
    'attribution',
    'canonizers',
    'cmap',
    'composites',
    'core',
    'image',
    'layer',
    'rules',
    'torchvision',
    'types',
]
