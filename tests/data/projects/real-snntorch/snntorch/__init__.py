from ._version import __version__
from ._neurons import *
from ._layers import *
# from .export_nir import export_to_nir
# from .import_nir import import_from_nir